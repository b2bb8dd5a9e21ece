package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
)

// trustCmd lists what a project's policy files would loosen and, on the
// person's confirmation, trusts their exact content; --list
// shows the trust store, --revoke forgets a project.
func trustCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	yes := fs.Bool("yes", false, "trust without asking (for scripts)")
	list := fs.Bool("list", false, "list the trusted project files")
	revoke := fs.Bool("revoke", false, "forget the trust of DIR's project files")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "toolgate trust: unexpected argument %q (one project folder at most)\n%s", fs.Arg(1), usages["trust"])
		return 2
	}
	if *list && *revoke {
		fmt.Fprintf(stderr, "toolgate trust: --list and --revoke do not go together\n%s", usages["trust"])
		return 2
	}
	home, agentDir := environment()
	store := policy.TrustStorePath(configHome(home), home)
	if *list {
		return trustList(store, stdout, stderr)
	}
	dir := fs.Arg(0)
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(dir); err == nil && !info.IsDir() {
			err = fmt.Errorf("not a folder")
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolgate trust: %s: %v\n", dir, err)
		return 2
	}
	if *revoke {
		root, n, err := author.Revoke(store, dir)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate trust: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d project file(s) no longer trusted\n", root, n)
		return 0
	}
	ts, err := policy.LoadTrustStore(store)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate trust: %v\n(it is written anew when you trust a project)\n", err)
		ts = &policy.TrustStore{Version: 1}
	}
	loc := policy.Locations{AgentDir: agentDir, Home: home, ConfigHome: configHome(home), Cwd: dir,
		ProjectTrusted: true, ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR")}
	files := author.ProjectFiles(loc)
	if len(files) == 0 {
		fmt.Fprintf(stdout, "%s has no project policy file: nothing to trust\n", dir)
		return 0
	}
	var take []policy.ProjectFile
	for _, f := range files {
		state := "not trusted"
		if f.Trusted {
			state = "trusted as it is"
		}
		fmt.Fprintf(stdout, "%s (%s)\n", gates.Visible(f.Path), state)
		switch {
		case !f.OK:
			fmt.Fprintf(stdout, "  %s\n", f.Why)
			continue
		case f.Broken != "":
			fmt.Fprintf(stdout, "  broken, so none of its rules apply until it is fixed: %s\n", gates.Visible(f.Broken))
		case len(f.Loosens) == 0:
			fmt.Fprintln(stdout, "  loosens nothing: every entry is as strict as the policy without it, or stricter")
		default:
			fmt.Fprintf(stdout, "  would loosen, once trusted (a deny of the global, agent or managed files still holds):\n")
			for _, l := range f.Loosens {
				fmt.Fprintf(stdout, "  %s:%d: %s\n", gates.Visible(f.Path), l.Line, gates.Visible(l.String()))
			}
		}
		take = append(take, f)
	}
	if len(take) == 0 {
		fmt.Fprintln(stdout, "no file here can be trusted")
		return 1
	}
	if !*yes {
		fmt.Fprintf(stdout, "Trust %d file(s) as they are now? Any later edit untrusts a file. [y/N] ", len(take))
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "\nnothing trusted")
			return 1
		}
	}
	if err := author.TrustFiles(store, ts, take); err != nil {
		fmt.Fprintf(stderr, "toolgate trust: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "trusted %d file(s) (recorded in %s)\n", len(take), store)
	return 0
}

// trustList prints the trust store, saying of each file whether it is
// still as it was trusted.
func trustList(store string, stdout, stderr io.Writer) int {
	files, err := author.TrustList(store)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate trust: %v\n", err)
		return 1
	}
	if len(files) == 0 {
		fmt.Fprintf(stdout, "no project file is trusted (%s)\n", store)
		return 0
	}
	for _, e := range files {
		fmt.Fprintf(stdout, "%s  %s  (trusted %s; %s)\n", gates.Visible(e.Root), gates.Visible(e.Path), e.TrustedAt, e.State)
	}
	return 0
}
