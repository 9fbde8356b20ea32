package npu_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/npu"
	"pldworkbench/kernels"
)

// upstreamCommit is the PyPTO commit the driver is written against.
const upstreamCommit = "e2d0f78ae"

// upstreamFile returns python/<path> of upstream PyPTO at upstreamCommit
// from the git directory PLD_UPSTREAM names, or skips saying why.
func upstreamFile(t *testing.T, path string) string {
	t.Helper()
	dir := os.Getenv("PLD_UPSTREAM")
	if dir == "" {
		t.Skip("PLD_UPSTREAM is not set: set it to a git directory of hw-native-sys/pypto to check the driver's names against python/pypto at " + upstreamCommit)
	}
	out, err := exec.Command("git", "--git-dir="+dir, "show", upstreamCommit+":python/"+path).Output()
	if err != nil {
		t.Fatalf("python/%s at %s: %v", path, upstreamCommit, err)
	}
	return string(out)
}

// moduleFile is where upstream defines module m: m/__init__.py or m.py.
func moduleFile(t *testing.T, m string) string {
	p := strings.ReplaceAll(m, ".", "/")
	dir := os.Getenv("PLD_UPSTREAM")
	if err := exec.Command("git", "--git-dir="+dir, "cat-file", "-e", upstreamCommit+":python/"+p+"/__init__.py").Run(); err == nil {
		return p + "/__init__.py"
	}
	return p + ".py"
}

// TestDriverNamesUpstream checks every PyPTO name the driver uses — the
// modules it imports from and what it imports, the keyword arguments it
// passes, the attributes it reads — against upstream's python/pypto, and
// that the driver of a real export uses no PyPTO keyword the lists leave
// out.
func TestDriverNamesUpstream(t *testing.T) {
	for _, imp := range npu.UpstreamImports {
		src := upstreamFile(t, moduleFile(t, imp[0]))
		name := regexp.QuoteMeta(imp[1])
		def := regexp.MustCompile(`(?m)^(class|def) ` + name + `\b|^` + name + ` *=|import .*\b` + name + `\b|^\s+` + name + `,?$|from \. import .*\b` + name + `\b`)
		if !def.MatchString(src) {
			t.Errorf("upstream %s at %s does not define or import %s", imp[0], upstreamCommit, imp[1])
		}
	}
	for where, kws := range npu.UpstreamKeywords {
		file, fn, _ := strings.Cut(where, ":")
		src := upstreamFile(t, file)
		start := regexp.MustCompile(`(?m)^(class|def) ` + regexp.QuoteMeta(fn) + `\b`).FindStringIndex(src)
		if start == nil {
			t.Errorf("%s defines no %s", file, fn)
			continue
		}
		body := src[start[0]:]
		if next := regexp.MustCompile(`(?m)^(class|def) `).FindStringIndex(body[1:]); next != nil {
			body = body[:next[0]+1]
		}
		for _, kw := range kws {
			if !regexp.MustCompile(`(?m)^\s+` + kw + `\s*:`).MatchString(body) {
				t.Errorf("upstream %s has no parameter or field %s", where, kw)
			}
		}
	}
	for file, attrs := range npu.UpstreamAttributes {
		src := upstreamFile(t, file)
		for _, a := range attrs {
			if !regexp.MustCompile(`def ` + a + `\(`).MatchString(src) {
				t.Errorf("upstream %s has no attribute %s", file, a)
			}
		}
	}

	// The lists are the driver's: every keyword a real export passes to a
	// PyPTO call is in them.
	k, _ := kernels.Get("18_three_ways")
	res, err := engine.Load(t.Context(), k.File, k.Source, engine.Options{}).Export(t.Context(), engine.ExportOptions{Options: engine.Options{Entry: "build_three_ways(4).host_builtin", Ranks: 4}})
	if err != nil || res.Script == nil {
		t.Fatalf("export: %v %v", err, res.Diags)
	}
	k1, _ := kernels.Get("01_hello_rank")
	res1, err := engine.Load(t.Context(), k1.File, k1.Source, engine.Options{}).Export(t.Context(), engine.ExportOptions{Options: engine.Options{Ranks: 2}})
	if err != nil || res1.Script == nil {
		t.Fatalf("export: %v %v", err, res1.Diags)
	}
	known := map[string]bool{}
	for _, kws := range npu.UpstreamKeywords {
		for _, kw := range kws {
			known[kw] = true
		}
	}
	for _, script := range [][]byte{res.Script, res1.Script} {
		driver := string(script[strings.Index(string(script), "# ---- the driver"):])
		for _, call := range regexp.MustCompile(`(RunConfig|DistributedConfig)\(([^)]*)\)`).FindAllStringSubmatch(driver, -1) {
			for _, kw := range regexp.MustCompile(`(\w+)=`).FindAllStringSubmatch(call[2], -1) {
				if !known[kw[1]] {
					t.Errorf("the driver passes %s= to %s, which the checked lists leave out", kw[1], call[1])
				}
			}
		}
		for _, kw := range regexp.MustCompile(`compile_kw\["(\w+)"\]|"(\w+)": (?:opts|dist)`).FindAllStringSubmatch(driver, -1) {
			name := kw[1] + kw[2]
			if !known[name] {
				t.Errorf("the driver passes %s to ir.compile, which the checked lists leave out", name)
			}
		}
	}
}
