package sandbox

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestLandlockOnlyWithoutNamespaces: without namespaces Landlock still
// keeps writes in the write roots, and the command is told what is not
// enforced (protected paths inside the roots, hidden files).
func TestLandlockOnlyWithoutNamespaces(t *testing.T) {
	w := newWorld(t)
	code, _, stderr := w.runWith(w.profile(), "echo ok > inside; touch $HOME/marker", options{noNamespaces: true})
	if code == 0 || w.exists(filepath.Join(w.home, "marker")) || w.read(filepath.Join(w.proj, "inside")) != "ok\n" {
		t.Errorf("exit %d; marker %v; %s", code, w.exists(filepath.Join(w.home, "marker")), stderr)
	}
	if !strings.Contains(stderr, NotEnforced) {
		t.Errorf("stderr does not say %q: %s", NotEnforced, stderr)
	}
}

// TestNetworkOff: "sandboxNetwork": "off" leaves the command its own
// loopback only, in a network namespace or, without one, by Landlock's
// TCP rules; on, the network is unchanged.
func TestNetworkOff(t *testing.T) {
	w := newWorld(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("reached\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := python(t) + ` -c 'import socket,sys
s=socket.create_connection(("127.0.0.1", ` + itoa(port) + `), timeout=5); print(s.recv(100).decode().strip())
t=socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(); print("own loopback")'`
	for _, tc := range []struct {
		name    string
		off     bool
		noNS    bool
		reached bool
	}{{"on", false, false, true}, {"off", true, false, false}, {"off without namespaces", true, true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.profile()
			p.NetworkOff = tc.off
			code, stdout, stderr := w.runWith(p, script, options{noNamespaces: tc.noNS})
			if got := strings.Contains(stdout, "reached"); got != tc.reached || tc.reached && code != 0 {
				t.Errorf("exit %d, reached %v, want %v\n%s%s", code, got, tc.reached, stdout, stderr)
			}
		})
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestNoProcForAPIDNamespace: where /proc cannot be mounted for a PID
// namespace, the command runs without one, confined as before, and says so.
func TestNoProcForAPIDNamespace(t *testing.T) {
	w := newWorld(t)
	code, stdout, stderr := w.runWith(w.profile(), "echo x > .git/config; echo $$", options{noProc: true})
	if code != 0 || !strings.Contains(stderr, "Read-only file system") || !strings.Contains(stderr, "without one") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}
