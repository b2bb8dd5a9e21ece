package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
)

// benchPolicyText is a policy file with n bash rules. The only rule that
// matches benchValue is the first one, so last-match-wins evaluation scans
// every other rule before it finds it. A quarter of the rules start with a
// wildcard, so they cannot be rejected by their literal prefix.
func benchPolicyText(n int) string {
	var b strings.Builder
	b.WriteString(`{"permission": {"*": "ask", "bash": {` + "\n")
	b.WriteString(`    "git *": "allow"`)
	actions := []string{"allow", "ask", "deny"}
	for i := 1; i < n; i++ {
		var pat string
		switch i % 4 {
		case 0:
			pat = fmt.Sprintf("* --danger-%d *", i)
		case 1:
			pat = fmt.Sprintf("tool%d *", i)
		case 2:
			pat = fmt.Sprintf("git push origin feature-%d*", i)
		default:
			pat = fmt.Sprintf("npm run script?%d", i)
		}
		fmt.Fprintf(&b, ",\n    %q: %q", pat, actions[i%3])
	}
	b.WriteString("\n}}}\n")
	return b.String()
}

const benchValue = "git status --short --branch --untracked-files=all"

func benchPolicy(b *testing.B, n int) *Policy {
	b.Helper()
	p := global(b, benchPolicyText(n))
	if got := len(p.Rules()); got != n+1 {
		b.Fatalf("policy has %d rules, want %d", got, n+1)
	}
	res := p.Resolve(Query{Surface: "bash", Values: []string{benchValue}})
	if res.Action != Allow || res.Rule.Pattern != "git *" {
		b.Fatalf("the bench value is decided by %q", res.Rule.Pattern)
	}
	return p
}

// benchResolveAllow times p's decision of q, which must be an allow.
func benchResolveAllow(b *testing.B, p *Policy, q Query) {
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if p.Resolve(q).Action != Allow {
			b.Fatal("wrong decision")
		}
	}
}

func benchEvaluate(b *testing.B, n int) {
	p := benchPolicy(b, n)
	benchResolveAllow(b, p, Query{Surface: "bash", Values: []string{benchValue}})
}

func BenchmarkEvaluate200(b *testing.B)   { benchEvaluate(b, 200) }
func BenchmarkEvaluate10000(b *testing.B) { benchEvaluate(b, 10000) }

// BenchmarkEvaluate200Floor adds an untrusted project file, so every
// non-deny answer also consults the trusted rules.
func BenchmarkEvaluate200Floor(b *testing.B) {
	p := composeOK(b, scopeFile(b, ScopeGlobal, benchPolicyText(200)),
		scopeFile(b, ScopeProject, `{"permission": {"bash": {"make *": "allow"}}}`))
	benchResolveAllow(b, p, Query{Surface: "bash", Values: []string{benchValue}})
}

func BenchmarkEvaluateMCP200(b *testing.B) {
	p := benchPolicy(b, 200)
	q := Query{Surface: "mcp", Values: candExaSearch, FirstCandidate: true}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.Resolve(q)
	}
}

func benchCompose(b *testing.B, n int) {
	files := []ScopeFile{scopeFile(b, ScopeGlobal, benchPolicyText(n))}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if p := Compose(files, testHome); len(p.Rules()) != n+1 {
			b.Fatal("wrong rule count")
		}
	}
}

func BenchmarkCompose200(b *testing.B)   { benchCompose(b, 200) }
func BenchmarkCompose10000(b *testing.B) { benchCompose(b, 10000) }

// benchParseCompose times a start's read of data as the global policy
// file: parse and compose.
func benchParseCompose(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f := ParseFile("/g.json", data)
		Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: f}}, testHome)
	}
}

func BenchmarkParseCompose200(b *testing.B) {
	data := []byte(benchPolicyText(200))
	benchParseCompose(b, data)
}

func BenchmarkMatchPathological(b *testing.B) {
	p := CompilePattern("*a*a*a*a*b", "")
	v := strings.Repeat("a", 10_000)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if p.Match(v, false) {
			b.Fatal("matched")
		}
	}
}

// benchEvaluateWords is benchEvaluate with the unit's words, so the
// canonical pass (option identity) runs too; the bench policy's
// "git push origin feature-N*" rules can be read as commands.
func benchEvaluateWords(b *testing.B, n int, unit string, want Action) {
	p := benchPolicy(b, n)
	q := Query{Surface: "bash", Values: []string{unit}, Args: strings.Fields(unit)}
	if got := p.Resolve(q).Action; got != want {
		b.Fatalf("%q is %v, want %v", unit, got, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.Resolve(q)
	}
}

func BenchmarkEvaluateWords200(b *testing.B)   { benchEvaluateWords(b, 200, benchValue, Allow) }
func BenchmarkEvaluateWords10000(b *testing.B) { benchEvaluateWords(b, 10000, benchValue, Allow) }
func BenchmarkEvaluateWordsPush10000(b *testing.B) {
	benchEvaluateWords(b, 10000, "git push -f -u origin feature-10", Ask)
}

func BenchmarkCanonicalize(b *testing.B) {
	words := strings.Fields("git push --force-with-lease -u origin main --no-verify")
	b.ReportAllocs()
	for b.Loop() {
		canonicalize(words, false)
	}
}

// BenchmarkParseCompose10000: what a start with a 10,000-rule policy costs
// before initialize can be answered (start to initialize under 15 ms).
func BenchmarkParseCompose10000(b *testing.B) {
	data := []byte(benchPolicyText(10000))
	benchParseCompose(b, data)
}

// e2ePolicyText is the end-to-end benchmark's policy of about n rules.
func e2ePolicyText(n int) string { return e2ecorpus.PolicyText(n) }

// BenchmarkLoadE2E10000 is a start's read of the end-to-end benchmark's
// 10,000-rule policy: parse and compose.
func BenchmarkLoadE2E10000(b *testing.B) {
	data := []byte(e2ePolicyText(10000))
	benchParseCompose(b, data)
}

// BenchmarkLoadE2E10000Indented is BenchmarkLoadE2E10000 with the policy
// written one rule a line, indented (as an editor or json.MarshalIndent
// writes it).
func BenchmarkLoadE2E10000Indented(b *testing.B) {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(e2ePolicyText(10000)), "", "  "); err != nil {
		b.Fatal(err)
	}
	data := out.Bytes()
	benchParseCompose(b, data)
}

// BenchmarkFirstBashCall10000 is what a hook host's process does with the
// 10,000-rule policy after the read: its one bash call, which makes the
// bash rules (ruleGroup) and decides on them.
func BenchmarkFirstBashCall10000(b *testing.B) {
	f := ParseFile("/g.json", []byte(e2ePolicyText(10000)))
	files := []ScopeFile{{Scope: ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: f}}
	q := Query{Surface: "bash", Values: []string{"git status"}, Args: []string{"git", "status"}}
	b.ReportAllocs()
	for b.Loop() {
		p := Compose(files, testHome)
		if p.Resolve(q).Action != Allow {
			b.Fatal("wrong decision")
		}
	}
}

// BenchmarkFastJSONC10000 is the one-pass parse alone of the end-to-end
// benchmark's 10,000-rule policy.
func BenchmarkFastJSONC10000(b *testing.B) {
	data := []byte(e2ePolicyText(10000))
	kids := 2*bytes.Count(data, []byte(":")) + 16
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := fastJSONC(data, kids); !ok {
			b.Fatal("not read")
		}
	}
}

// BenchmarkLoaderStartE2E10000 is a hook host's process from its first
// read of the files to its one decision, with the end-to-end benchmark's
// 10,000-rule global policy on disk: a one-shot loader's pass (stat, read,
// parse, compose every location) and a bash call. A start of the serve
// loop is the same pass without the call.
func BenchmarkLoaderStartE2E10000(b *testing.B) {
	dir := b.TempDir()
	loc := Locations{AgentDir: filepath.Join(dir, "agent"), Home: testHome, ConfigHome: filepath.Join(dir, "config"), Cwd: filepath.Join(dir, "proj"), ProjectTrusted: true}
	if err := os.MkdirAll(filepath.Dir(GlobalPath(loc.AgentDir)), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(GlobalPath(loc.AgentDir), []byte(e2ePolicyText(10000)), 0o644); err != nil {
		b.Fatal(err)
	}
	q := Query{Surface: "bash", Values: []string{"git status"}, Args: []string{"git", "status"}}
	b.ReportAllocs()
	for b.Loop() {
		p := NewOneShotLoader().Policy(loc)
		if len(p.Warnings) > 0 || p.Resolve(q).Action != Allow {
			b.Fatal("wrong policy", p.Warnings)
		}
	}
}
