package verify_test

import (
	"context"
	"fmt"

	"github.com/tilekit/tilekit/data"
	"github.com/tilekit/tilekit/verify"
)

// Verify a table file and print each check.
func ExampleBytes() {
	raw, err := data.Embedded(data.PDBSmall)
	if err != nil {
		panic(err)
	}
	r := verify.Bytes(context.Background(), data.PDBSmall, raw, verify.Options{})
	fmt.Println(r.OK)
	for _, c := range r.Checks {
		fmt.Println(c.Name, c.Status)
	}
	// Output:
	// true
	// integrity pass
	// exactness pass
	// published pass
	// symmetry skip
	// admissibility skip
	// rebuild skip
}
