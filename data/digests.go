package data

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tilekit/tilekit/internal/atomicfile"
	"github.com/tilekit/tilekit/tablefile"
)

// digests holds the SHA-256 of the decoded payload of every table that pdbgen builds, by
// file name. Builds are deterministic (the same bytes for any number of workers), so a file
// of one of these names with another digest is not the table it claims to be, whatever its
// own checksums say: checksums only show that a file is intact, not that its values are
// right. The embedded files are proven equal to fresh builds by this package's tests, and
// TestDigests checks this table against them and a fresh 5-5-5 build; the 7-8, 6-6-6-6,
// 6-6-3z, 7-8z, 6-6-6-6z and small-t digests are those of `pdbgen build --set NAME` with one and
// two workers.
var digests = map[string]string{
	WDBlankLast:                        "4ac8e9310a9b3b7cebd350d87364e91b218ff97f8ba5adf2638ae25007d8d37e",
	WDBlankFirst:                       "66e2c1d3ee8a852ca96a437d2dd969bd2634769ef09b2131dc7b26de8770f2ab",
	PDBSmall:                           "f86f4cd07d3f1bf77380792e1e1aef3fdc8f88879d577d99e8c033cc1d26efc5",
	PDBLarge:                           "a4fbb09bfd98247d363469ab56cef6e1b5a7d76867b1e573934b3d223d20f005",
	"pdb-4x4-1-2-3-4-7.tbl":            "5b455d31a26d4d4937198460f44df4edba4690a33eaa11b35856c10c385abbe8",
	"pdb-4x4-5-6-9-10-13.tbl":          "d80ebea85d84eac9ee32e9708c06eb40a79ea58198e6f2ceb2936c4f89d1538f",
	"pdb-4x4-8-11-12-14-15.tbl":        "aa31726fcb3be75ff752a5381a6dc6790674c3d959164f60e2e24d137d12b4a4",
	"pdb-4x4-1-5-6-9-10-13.tbl":        "456ba4e357febed723f3bb2ef5919190912788bd26f6dcc78b83aa3a1d17b562",
	"pdb-4x4-7-8-11-12-14-15.tbl":      "578cc5e52a661e594ada1dce62c5d2b958d90bac85b65e7306c254d625b74e54",
	"pdb-4x4-2-3-4.tbl":                "4c0c3ac36d524baae24b900688911f129d33f305b59eea144b4d46c2bb2e3e92",
	"pdb-4x4-1-2-3-4-5-6-7-8.tbl":      "8a4d75a98ee7d629c34093b5ffcafc5f813091a8c6258d3a646c4e01416d2df1",
	"pdb-4x4-9-10-11-12-13-14-15.tbl":  "0e033d10bfa1e884267c4616575d7c219d734b18b4a425575c9bebce815f34c5",
	"pdb-5x5-1-2-5-6-7-12.tbl":         "6673f6efea3b9398903ad83a85598c94ecaae521325a906a59998d6544d3a19b",
	"pdb-5x5-3-4-8-9-13-14.tbl":        "1ac053902e83106909d27f6bfeb21bb8b3dd998ab45c1310d116e90032e90d4c",
	"zpdb-4x4-1-5-6-9-10-13.tbl":       "291c9f2cfc0025746235d4e925be2bc2ac0f6837102f208f945a0eb877cef4b1",
	"zpdb-4x4-7-8-11-12-14-15.tbl":     "b6be5ae3db139d01a13f8e785c83a87c6302e2ab901887aeaeda344b6ed482e7",
	"zpdb-4x4-1-2-3-4-5-6-7-8.tbl":     "35cbaa66392f58ba0cac6fb097987d019eedb6cc33c00486e9167b5d814244a7",
	"zpdb-4x4-9-10-11-12-13-14-15.tbl": "cac86eb5f8522bdeb97f95c8a25a3bf2fe422ab859c8d26055716bff19a7c9d4",
	"zpdb-4x4-2-3-4.tbl":               "2af211e41b101f4d055c184a95ccbaf93029c15c1490e458c43bfa91364f2af7",
	"zpdb-5x5-1-2-5-6-7-12.tbl":        "49187d6b7543bb6f59e8e3d57b417e592f4aaf566e3670fc076df11522b1443e",
	"zpdb-5x5-3-4-8-9-13-14.tbl":       "14c76824f7ecfff9db25d259388a0bb4cc8fdfde6c1dc70ec905cf5d1e52a70b",
	"zpdb-5x5-1-2-5-6-10-11.tbl":       "1e0e1bbcb5fccaa6c46bfb49143e10ef21034108fa569b58a3022464d1980bc8",
	"zpdb-5x5-1-5-6-10-11-12.tbl":      "73fe1bab5ea7c797f33cbd73376d04a01f97a5965b7ff8778bef5231239c1c6a",
	"zpdb-5x5-1-5-6-10-15-20.tbl":      "4873a3de1444f0fb62f0dd7e9412d147efecc16f9db9461ba8b7a3d2444acc1a",
	"zpdb-5x5-11-12-13-16-17-18.tbl":   "912a9facbb04dc6435d3674de33a09b475f15136fb021f24c1e25f50352a850f",
	"zpdb-5x5-11-12-16-17-21-22.tbl":   "22517d0215e0587cc13e304f1f5b74a1c5ae72649b3245108171bcf42fc4dca5",
	"zpdb-5x5-13-14-15-16-17-18.tbl":   "b1164160a2bb4539b8853908417705bd40b158b7eed0b886de76c5e00e74eecc",
	"zpdb-5x5-13-14-18-19-23-24.tbl":   "ded71ad4dd3ad8e165836a763fa0f0f8cffde55add77eec5f7219baf21c856db",
	"zpdb-5x5-14-19-21-22-23-24.tbl":   "a40e0096df673152de05430b481dd2f165deb936c2c07df3ca3d0f102471e61a",
	"zpdb-5x5-15-16-17-20-21-22.tbl":   "d0670487061b645de13095384e6b85bcc6fee0f075b3786a8cddba00bc6f2b36",
	"zpdb-5x5-19-20-21-22-23-24.tbl":   "8b3666211386dd537e18beb01e58160bbc6465f3ea8db7503ce1a4aa61ccbc54",
	"zpdb-5x5-2-3-4-7-8-9.tbl":         "1c9df898311b46e5bb6cccded63f7ad3669cc673b49c3345f949e49910254d7b",
	"zpdb-5x5-3-4-7-8-9-12.tbl":        "a29fac7c5e7275bba60e300706809e32861bdcf4619c2b72de83807148e1c7cb",
	"zpdb-5x5-3-4-9-14-19-24.tbl":      "1742f37a99ed3c9b3835cac199354ae78116788025adb26ea87679cbdda5950e",
	"zpdb-5x5-7-8-12-13-18-23.tbl":     "6e48c610aa4ab00971d3a2fb5e80a20785c8a4bf4eb943112710e9f69366eb55",
	// The duplicate-path automata of prune.DefaultDepth (TestAutomatonDigests
	// builds them again), and the deeper ones of 5x5, 18 of them installed by default
	// (prune.InstallDepth). Those were built by two generators, before and after the build's
	// rewrite (docs/RESULTS.md), to the same bytes, and proven by pdbgen verify;
	// TILEKIT_DEEP_AUTOMATA=1 makes TestAutomatonDigests build them again (1.5 minutes and
	// 2.8 GB for depth 18).
	"prune-4x4-d12.tbl": "42376dbb27a2eba003d3ade93359fc725c66a3a5c8c0af0412ba978d12ffa54d",
	"prune-5x5-d14.tbl": "487669d0883995103d40d70828ff96d7033f796f47091f1fd535c3040cf40031",
	"prune-5x5-d16.tbl": "557fef1f7424a064ee9aa92348216fa76522dac33930ee0badb98da19a7c7c66",
	"prune-5x5-d17.tbl": "ca38c983801a5d946185cf6da01049b53d138b9e9471247313b455d823b5eee8",
	"prune-5x5-d18.tbl": "250d00f32027da53c27ea36791a5198fef495b0d7aa4e35e417abc6a0288b6c9",
}

// ErrNotStandard reports a table file whose values are not those of the table its name
// stands for, and that pdbgen verify has not proven.
var ErrNotStandard = errors.New("not the table that pdbgen builds")

// VerifiedSuffix is appended to a table file's path to name the record that pdbgen verify
// writes when the file passes every check: one line, "decoded-sha256: HEX".
const VerifiedSuffix = ".verified"

// bitDigests holds the digests of the zero-aware sets' tables in the bit encoding
// (pdbgen build --bits), under the same file names: pdb.Packed.ToBits of the tables above,
// whose values are proven, so that these are known too.
var bitDigests = map[string]string{
	"zpdb-4x4-1-2-3-4-5-6-7-8.tbl":     "8a6774dded6f20a2e40d48ef9de94063513cc56b0f67317b89ce84430b4763e6",
	"zpdb-4x4-1-5-6-9-10-13.tbl":       "83c5a1e439d14d8cc6cbb1e942c4166223b330de23ef6fc23e263ab3b0e72273",
	"zpdb-4x4-2-3-4.tbl":               "451d9cbca7f38898e1f49bea3b942ae15409119055bba9c9aecf9c145e089df8",
	"zpdb-4x4-7-8-11-12-14-15.tbl":     "1055f9540bee62f0006d5c6574acc344701dba60df29a621a186363966802c09",
	"zpdb-4x4-9-10-11-12-13-14-15.tbl": "67d5f0d8d6767326c7333ebb84fde611046cd263764f3dfaf7687ed0dade9449",
	"zpdb-5x5-1-2-5-6-10-11.tbl":       "fcc622d9181e095ce3caf3c6eae1f3a7accb66615504556b849028ae9db90064",
	"zpdb-5x5-1-2-5-6-7-12.tbl":        "74bd67b95715f06f598cdfe16de218f5cfdd11530705c1b331b02e8eff013a4c",
	"zpdb-5x5-1-5-6-10-11-12.tbl":      "78e8390f4c1ac4a036c495bfce5739049f8c121ef30e6191cd333b8348acee32",
	"zpdb-5x5-1-5-6-10-15-20.tbl":      "f346ac28875f3a726bc78ca1f12503cc8aaaf6be06cac7957f5ac720d4b9e29a",
	"zpdb-5x5-11-12-13-16-17-18.tbl":   "0ec9d3158c701844a41bf340932bb0bb1cf00c5fedd640aa043a1435bb72dcc6",
	"zpdb-5x5-11-12-16-17-21-22.tbl":   "7cd037de495ea0d21e2b9f4002528be871b51ae2844e740ae3a405b82eaf0ff6",
	"zpdb-5x5-13-14-15-16-17-18.tbl":   "abb7a4ac281e64079316394f10984079ba78dc5644f84fe9c083eb7fbace63b3",
	"zpdb-5x5-13-14-18-19-23-24.tbl":   "9bc6749cd22a467790f3c8f1ad47c9cbb20b9cb59aa2dbd15aa2846dc806d775",
	"zpdb-5x5-14-19-21-22-23-24.tbl":   "658fd9cb1e246df6345b0d1e6490a73add5c0f441b3a96c211d85edadcb9f425",
	"zpdb-5x5-15-16-17-20-21-22.tbl":   "8feacd14467de442a71fd4225082f1a34949aa5ac996f370456685bf609fffe2",
	"zpdb-5x5-19-20-21-22-23-24.tbl":   "0e0b62a7910925a186b6e402d2a6cf3f463fc672a4a6a474cec9f7edf3cd844d",
	"zpdb-5x5-2-3-4-7-8-9.tbl":         "532f6ae621424bdc32848dbc73db5121a6dd479f81b92f3c47f9029e5f87e619",
	"zpdb-5x5-3-4-7-8-9-12.tbl":        "35afdf3aa9e6414d270f550b8982916afd40f854f16b0e33d82baa661290039d",
	"zpdb-5x5-3-4-8-9-13-14.tbl":       "2ca58f1648e905cebe3616d33489b4d6c0bf0473bb288a403345810ebae31931",
	"zpdb-5x5-3-4-9-14-19-24.tbl":      "bd0d9ba438bc66d451162a484c8dd49d19539ad7deb7ddfef84829526d366784",
	"zpdb-5x5-7-8-12-13-18-23.tbl":     "629117b818ff461580d4db8cc2873127406a3d6079bdcbf87bd38bcb12c4509f",
}

// trusted accepts the table t read from path under its file name when its values are
// known: its decoded digest is the standard one for that name, or the one that pdbgen
// verify recorded beside it.
func trusted(path, name string, t *tablefile.Table) error {
	got := fmt.Sprintf("%x", t.DecodedSHA)
	known := digests
	if t.Encoding == tablefile.EncodingBit {
		known = bitDigests
	}
	if want, ok := known[name]; ok && got == want {
		return nil
	}
	if rec, err := readRecord(path + VerifiedSuffix); err == nil && rec == got {
		return nil
	}
	return fmt.Errorf("%s: %w (its decoded sha256 is %s); run pdbgen verify %s, which records it when it proves the table right",
		path, ErrNotStandard, got, path)
}

// Accepted reads the table file at path as the loaders do (its checksums, within
// tablefile's bounds) and reports whether they would accept its values under its file
// name: the standard digest, or the one pdbgen verify recorded beside it. It returns the
// table, which holds the decoded values.
func Accepted(path string) (*tablefile.Table, error) {
	t, err := tablefile.Read(path)
	if err != nil {
		return nil, err
	}
	return t, trusted(path, filepath.Base(path), t)
}

// IsStandard reports whether digest (hex) is that of the table pdbgen builds under the
// file name name.
func IsStandard(name, digest string) bool {
	return digests[name] == digest || bitDigests[name] == digest
}

// readRecord returns the digest a verification record holds.
func readRecord(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 200) // the record is one short line
	n, _ := f.Read(buf)
	line := strings.TrimSpace(string(buf[:n]))
	digest, ok := strings.CutPrefix(line, "decoded-sha256: ")
	if !ok || len(digest) != 64 {
		return "", fmt.Errorf("%s: not a verification record", path)
	}
	return digest, nil
}

// RemoveRecord removes the record beside the table file at path, if there is one: a file
// found false must no longer be vouched for. It reports whether there was one.
func RemoveRecord(path string) (bool, error) {
	err := os.Remove(path + VerifiedSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// RecordVerified writes, beside the table file at path, the record that it was proven
// right, holding its decoded digest (hex): loaders then accept the file as it is.
func RecordVerified(ctx context.Context, path, digest string) error {
	return atomicfile.Write(ctx, path+VerifiedSuffix, []byte("decoded-sha256: "+digest+"\n"))
}
