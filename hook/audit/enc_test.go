package audit

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"
)

// nastyString is a random string of the bytes and runes an encoder must
// get right: quotes, backslashes, control characters, DEL, HTML
// characters, U+2028/U+2029, U+FFFD, other runes and invalid UTF-8.
func nastyString(r *rand.Rand) string {
	pieces := []string{`"`, `\`, "\x00", "\x01", "\x1f", "\b", "\f", "\n", "\r", "\t", "\x7f", "<", ">", "&", "\u2028", "\u2029",
		"\ufffd", "é", "日本", "\U0001F600", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "a", "git status", " ", "/", "'", "%", "{}", "\\u0041"}
	var b strings.Builder
	for n := r.IntN(12); n > 0; n-- {
		if r.IntN(3) == 0 {
			b.WriteByte(byte(r.IntN(256)))
		} else {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	if r.IntN(20) == 0 {
		b.WriteString(strings.Repeat("x<y", 3000)) // long
	}
	return b.String()
}

// zerologFields is what zerolog writes for fill, without the braces.
func zerologFields(fill func(e *zerolog.Event)) string {
	var buf bytes.Buffer
	lg := zerolog.New(&buf)
	ev := lg.Log()
	fill(ev)
	ev.Send()
	s := strings.TrimSuffix(buf.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
}

func TestEncWritesWhatZerologWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		k, v := nastyString(r), nastyString(r)
		n, u := r.Int(), r.Uint64()
		if i%2 == 0 {
			n = -n
		}
		raw := []byte(`{"a":[1,"x"]}`)
		want := zerologFields(func(e *zerolog.Event) {
			e.Str(k, v).Int("n", n).Int64("n64", int64(n)).Uint64("u", u).RawJSON("raw", raw).Str("empty", "")
		})
		var e Enc
		e.b = append(e.b, '{')
		e.Str(k, v).Int("n", n).Int64("n64", int64(n)).Uint64("u", u).RawJSON("raw", raw).Str("empty", "")
		if got := string(e.Bytes()[1:]); got != want {
			t.Fatalf("Str(%q, %q):\n got %s\nwant %s", k, v, got, want)
		}
	}
}

func TestAppendJSONStringIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		s := nastyString(r)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		std, _ := stdjson.Marshal(s)
		got := AppendJSONString(nil, s)
		if !bytes.Equal(got, want) || !bytes.Equal(got, std) {
			t.Fatalf("%q:\n got %s\nwant %s (goccy)\n std %s", s, got, want, std)
		}
	}
}

// randomJSON is a random JSON text, compact or not, with strings of every
// kind and numbers of every form.
func randomJSON(r *rand.Rand, depth int) string {
	ws := func() string {
		if r.IntN(8) == 0 {
			return []string{" ", "\n", "\t", "\r", "  "}[r.IntN(5)]
		}
		return ""
	}
	switch k := r.IntN(9); {
	case k == 0 && depth < 5:
		var parts []string
		for n := r.IntN(4); n > 0; n-- {
			ks, _ := stdjson.Marshal(nastyString(r))
			key := string(ks)
			if r.IntN(2) == 0 {
				key = `"` + []string{"command", "path", "a\\\"b", "\\u003c", "x\\ud800"}[r.IntN(5)] + `"`
			}
			parts = append(parts, ws()+key+ws()+":"+ws()+randomJSON(r, depth+1)+ws())
		}
		return "{" + strings.Join(parts, ",") + "}"
	case k == 1 && depth < 5:
		var parts []string
		for n := r.IntN(4); n > 0; n-- {
			parts = append(parts, ws()+randomJSON(r, depth+1)+ws())
		}
		return "[" + strings.Join(parts, ",") + "]"
	case k == 2:
		return []string{"true", "false", "null"}[r.IntN(3)]
	case k == 3:
		return []string{"0", "-0", "12", "-3.25", "1e10", "1E+2", "2.5e-3", "123456789012345678901234567890", "0.0"}[r.IntN(9)]
	case k == 4:
		b, _ := stdjson.Marshal(nastyString(r)) // valid, maybe escaped
		return string(b)
	case k == 5:
		return `"` + []string{`echo \"hi\"`, `a\\b`, `\n\t\/`, `\u00e9\ud83d\ude00`, `x\ud800y`, `tab	in`, "\xff", `<b>`, "a\u2028b\u2029 é"}[r.IntN(9)] + `"`
	default:
		return `"` + []string{"git status", "src/main.go", "ls -la", ""}[r.IntN(4)] + `"`
	}
}

// What AppendCompactJSON writes of a raw input it takes is what Marshal
// writes of it; whatever it refuses goes to Marshal.
func TestAppendCompactJSONIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	took, refused, tookHTML, tookSep, tookUTF8 := 0, 0, 0, 0, 0
	check := func(in string) {
		got, ok := AppendCompactJSON([]byte("x"), []byte(in))
		out, err := json.Marshal(stdjson.RawMessage(in))
		if ok {
			took++
			if strings.ContainsAny(in, "<>&") {
				tookHTML++
			}
			if strings.ContainsAny(in, "\u2028\u2029") {
				tookSep++
			}
			if strings.ContainsAny(in, "é日\U0001F600") {
				tookUTF8++
			}
			if err != nil || string(got) != "x"+string(out) {
				t.Fatalf("AppendCompactJSON of %q wrote %q, but Marshal writes %q (%v)", in, got, out, err)
			}
			if !stdjson.Valid([]byte(in)) {
				t.Fatalf("AppendCompactJSON took invalid JSON %q", in)
			}
		} else {
			refused++
			if string(got) != "x" {
				t.Fatalf("AppendCompactJSON refused %q but appended %q", in, got)
			}
		}
	}
	for i := 0; i < 30000; i++ {
		in := randomJSON(r, 0)
		check(in)
		if len(in) > 1 { // broken ones: cut, a byte changed
			check(in[:r.IntN(len(in))])
			b := []byte(in)
			b[r.IntN(len(b))] = "{}[],:\"\\ 0-.e+tfnu<x"[r.IntN(20)]
			check(string(b))
		}
	}
	for _, in := range []string{"", " ", "{}", "[]", `{"a":1}x`, `{"a":1} `, " {}", "01", "1.", "-", "1e", `"\u12"`, `"\x"`, `{"a"}`, `{"a":}`, `[1,]`, `{,}`, "nul", "truex",
		strings.Repeat("[", 70) + strings.Repeat("]", 70), `{"command":"git status"}`, `{"command":"make 2>&1 | tee <x >y && ok"}`,
		"{\"t\":\"\u2028\u2029é\"}", "[\"\xe2\x80\"]", "[\"\xed\xa0\x80\"]"} {
		check(in)
	}
	if took < 1000 || refused < 1000 || tookHTML < 100 || tookSep < 100 || tookUTF8 < 100 {
		t.Fatalf("took %d (%d with HTML characters, %d with U+2028/9, %d with other runes), refused %d: the generator does not cover them",
			took, tookHTML, tookSep, tookUTF8, refused)
	}
}

// oldRecord is the record the zerolog writer wrote (the code this package
// had before Enc), for the same time, seq, event, fields and prev.
func oldRecord(tm string, seq uint64, event string, fill Fields, prev string) string {
	var buf bytes.Buffer
	lg := zerolog.New(&buf)
	e := lg.Log().Str("time", tm).Uint64("seq", seq).Str("event", event)
	if fill != nil {
		fill(e)
	}
	e.Str("prev", prev).Send()
	body := bytes.TrimRight(buf.Bytes(), "\n")
	hash := Hash(prev, body)
	return string(body[:len(body)-1]) + `,"hash":"` + hash + `"}` + "\n"
}

// Every record the log writes is byte for byte the one the zerolog writer
// wrote, for generated fields of every kind; the log verifies.
func TestRecordsAreTheZerologRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path)
	r := rand.New(rand.NewPCG(7, 8))
	var fills []Fields
	var events []string
	for i := 0; i < 500; i++ {
		k, v, ev := nastyString(r), nastyString(r), nastyString(r)
		n := r.IntN(1 << 40)
		var fill Fields
		switch i % 3 {
		case 0:
			fill = func(e *zerolog.Event) { e.Str(k, v).Int("n", n) }
		case 1:
			fill = nil
		case 2:
			fill = func(e *zerolog.Event) {}
		}
		fills, events = append(fills, fill), append(events, ev)
		if err := l.Append(ev, fill); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	mustVerify(t, path, 500)
	prev := Genesis
	for i, line := range strings.SplitAfter(readFile(t, path), "\n")[:500] {
		var rec struct {
			Time string `json:"time"`
			Hash string `json:"hash"`
		}
		if err := stdjson.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if want := oldRecord(rec.Time, uint64(i+1), events[i], fills[i], prev); line != want {
			t.Fatalf("record %d:\n got %s\nwant %s", i+1, line, want)
		}
		prev = rec.Hash
	}
}

func TestAppendHeadIsTheFmtRecord(t *testing.T) {
	h := strings.Repeat("ab", 32)
	for _, seq := range []uint64{0, 1, 9, 10, 12345, 1<<63 + 5, ^uint64(0)} {
		want := strconv.Quote(fmt.Sprintf("%020d %s\n", seq, h))
		if got := strconv.Quote(string(appendHead(nil, seq, []byte(h)))); got != want {
			t.Fatalf("head of %d = %s, want %s", seq, got, want)
		}
	}
}

// TestAppendTimeIsRFC3339Nano: the record's time is the bytes of
// t.UTC().AppendFormat(time.RFC3339Nano), for every kind of fraction
// (none, trailing zeros, all nine digits), zones, and years at the edges.
func TestAppendTimeIsRFC3339Nano(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7*3600-30*60), time.FixedZone("y", 14*3600)}
	var times []time.Time
	for _, ns := range []int{0, 1, 10, 100, 1000, 120000000, 999999999, 500000000, 123456789, 100000001} {
		for _, sec := range []int64{0, 1, 59, 86399, 951782400, 4102444800, -62135596800, 253402300799, -62135596801, 253402300800} {
			times = append(times, time.Unix(sec, int64(ns)))
		}
	}
	for i := 0; i < 20000; i++ {
		times = append(times, time.Unix(r.Int64N(253402300800+62135596800)-62135596800, r.Int64N(1e9)))
		times = append(times, time.Unix(r.Int64N(4e9), r.Int64N(1e6)*1000))
	}
	times = append(times, time.Now(), time.Time{})
	for _, tm := range times {
		for _, z := range zones {
			tz := tm.In(z)
			want := tz.UTC().AppendFormat([]byte("x"), time.RFC3339Nano)
			if got := appendTime([]byte("x"), tz); string(got) != string(want) {
				t.Fatalf("%v: got %s, want %s", tz, got, want)
			}
		}
	}
}

func BenchmarkAppendTime(b *testing.B) {
	buf := make([]byte, 0, 64)
	now := time.Now()
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			buf = appendTime(buf[:0], now)
		}
	})
	b.Run("AppendFormat", func(b *testing.B) {
		for b.Loop() {
			buf = now.UTC().AppendFormat(buf[:0], time.RFC3339Nano)
		}
	})
}

// TestZerologStringLongRuns: the escaper's 8-byte skip must stop at every
// byte zerolog escapes and the answers' way does not (DEL), and pass what
// zerolog leaves (U+2028, '<') as it is, wherever it falls in a run.
func TestZerologStringLongRuns(t *testing.T) {
	for _, special := range []string{"\x7f", "\u2028", "<", "&", "\x00", "\xff"} {
		for pre := 0; pre < 17; pre++ {
			s := strings.Repeat("a", pre) + special + strings.Repeat("b", 9)
			want := zerologFields(func(e *zerolog.Event) { e.Str("k", s) })
			var e Enc
			e.b = append(e.b, '{')
			e.Str("k", s)
			if got := string(e.Bytes()[1:]); got != want {
				t.Errorf("%q:\n got %s\nwant %s", s, got, want)
			}
		}
	}
}
