package api

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Requests and answers pass through a tree: the values JSON has (map[string]any for an
// object, []any, string, float64, bool and nil), which is what encoding/json makes of a
// body and what the page's worker makes of a JavaScript object. The server reads bodies
// into a tree with encoding/json; the page's WebAssembly gets one from JavaScript, so it
// links no JSON package (a tenth of its size). The fields are those of the structs' json
// tags in both: one definition, read by the same code.

// MaxTreeNodes bounds the values in a request's tree (a 5x5 state is 26): a request from
// JavaScript has no body size to bound it.
const MaxTreeNodes = 4096

// FromTree fills the request v (a pointer to a struct) from tree, an object: each key must
// be a field's json name (embedded structs' fields included), of the field's type; a
// field of type any takes any value.
func FromTree(tree any, v any) error {
	obj, ok := tree.(map[string]any)
	if !ok {
		return bad("bad JSON: the body must be an object, not %s", kind(tree))
	}
	if n := countNodes(tree, MaxTreeNodes+1); n > MaxTreeNodes {
		return bad("bad JSON: more than %d values in the body", MaxTreeNodes)
	}
	fields := map[string]reflect.Value{}
	collectFields(reflect.ValueOf(v).Elem(), fields)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is the same whatever the order
	for _, k := range keys {
		f, ok := fields[k]
		if !ok {
			return bad("bad JSON: unknown field %q", k)
		}
		if err := setField(f, obj[k]); err != nil {
			return bad("bad JSON: field %q: %v", k, err)
		}
	}
	return nil
}

// collectFields maps the json names of a struct's fields, and of its embedded structs',
// to the fields.
func collectFields(s reflect.Value, into map[string]reflect.Value) {
	for i := 0; i < s.NumField(); i++ {
		f := s.Type().Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			collectFields(s.Field(i), into)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" && f.IsExported() {
			into[name] = s.Field(i)
		}
	}
}

// setField sets a request's field from a tree value: the kinds requests have.
func setField(f reflect.Value, v any) error {
	if v == nil {
		return nil // null leaves the default, as encoding/json does
	}
	switch f.Kind() {
	case reflect.Interface:
		f.Set(reflect.ValueOf(v))
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("a string expected, not %s", kind(v))
		}
		f.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("true or false expected, not %s", kind(v))
		}
		f.SetBool(b)
	case reflect.Float64:
		x, ok := v.(float64)
		if !ok {
			return fmt.Errorf("a number expected, not %s", kind(v))
		}
		f.SetFloat(x)
	case reflect.Int, reflect.Int64, reflect.Uint64:
		x, ok := v.(float64)
		if !ok || x != math.Trunc(x) {
			return fmt.Errorf("a whole number expected, not %s", kind(v))
		}
		if f.Kind() == reflect.Uint64 {
			if x < 0 || x >= 1<<64 {
				return fmt.Errorf("%v is out of range", x)
			}
			f.SetUint(uint64(x))
			return nil
		}
		if x < math.MinInt64 || x >= 1<<63 {
			return fmt.Errorf("%v is out of range", x)
		}
		f.SetInt(int64(x))
	default:
		return errors.New("a field of a kind requests do not have") // a bug: tested
	}
	return nil
}

// kind names a tree value's JSON type, for messages.
func kind(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		if v == math.Trunc(v) {
			return "the number " + fmt.Sprint(v)
		}
		return "a fraction"
	case bool:
		return "true or false"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

// countNodes counts a tree's values, stopping past most.
func countNodes(v any, most int) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			if n += countNodes(x, most-n); n > most {
				break
			}
		}
	case []any:
		for _, x := range v {
			if n += countNodes(x, most-n); n > most {
				break
			}
		}
	}
	return n
}

// Tree returns an answer as a tree: structs become objects keyed by their json tags
// (omitempty honoured), numbers float64, slices lists, maps objects, nil pointers null.
// It is what encoding/json would write of v, as values rather than text.
func Tree(v any) any { return tree(reflect.ValueOf(v)) }

func tree(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return tree(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		structTree(v, out)
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = tree(it.Value())
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = tree(v.Index(i))
		}
		return out
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return fmt.Sprint(v.Interface())
}

// structTree adds a struct's fields to out by their json tags, and its embedded structs'.
func structTree(v reflect.Value, out map[string]any) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			structTree(v.Field(i), out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && isEmpty(v.Field(i)) {
			continue
		}
		out[name] = tree(v.Field(i))
	}
}

// isEmpty reports whether omitempty leaves v out, as encoding/json decides: false, 0, a
// nil pointer or interface, an empty string, slice, map or array (never a struct).
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}
