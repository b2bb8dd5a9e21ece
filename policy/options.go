package policy

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// Option identity: a command's words are also read as
// {command words, set of options, operands in order}, so that every
// spelling of the same options — clusters split or merged, any order, long
// or short, before or after the operands where the command permutes them —
// has one form. The tables below say, per command, what is known about its
// options; a command not in them keeps its options as written (no
// splitting), before its first operand only.

// cmdSpec is what is known about one command's (or subcommand's) options.
type cmdSpec struct {
	cluster bool // short options cluster: -rf is -r -f
	permute bool // options may follow operands (GNU getopt, git, pflag)
	abbrev  bool // a long option may be abbreviated to a unique prefix
	valued  string
	// optional are short options whose value, if any, is glued (sed -i.bak).
	optional string
	// long maps a long option name to its canonical keys ("recursive" →
	// ["-r"]); a name mapped to nothing is kept as "--name".
	long       map[string][]string
	longValued map[string]bool
	// alias maps a short option to its canonical keys (rm -R is -r,
	// git branch -D is -d -f).
	alias map[byte][]string
	// subs are the subcommands (the first operand is one); anySub is the
	// spec of a subcommand not listed.
	subs     map[string]*cmdSpec
	anySub   *cmdSpec
	subAlias map[string]string // npm i → install
	// deref maps a subcommand as the command itself reads it (npm: aliases,
	// unique abbreviations, camelCase); "" when it names none.
	deref      func(string) string
	nested     map[string]bool // subcommands whose first operand is a subcommand too (docker container rm)
	nestedSame bool            // a nested subcommand is read with the parent's subs (docker container rm is docker rm)
	find       bool            // find: the expression's primaries are options
	tarOld     bool            // tar: a first word without a dash is a cluster (tar xzf f)
	signals    bool            // kill: every spelling of a signal is read as -s=NUMBER
	plusForce  bool            // git push: an operand "+ref" forces
	// kinds maps the first operand's short and plural names to one
	// (kubectl delete ns x is kubectl delete namespace x); a first operand
	// "kind/name" is read as "kind name".
	kinds map[string]string
}

// opt builds a spec: flags is a set of letters (c cluster, p permute, a
// abbrev), valued the short options that take a value, long a list of
// "name", "name=", "name:-k", "name=:-k" or "name:-a,-b" (= takes a value;
// after the colon the canonical keys), alias a list of "R:-r" or "D:-d,-f".
func opt(flags, valued, long, alias string) *cmdSpec {
	s := &cmdSpec{
		cluster: strings.Contains(flags, "c"), permute: strings.Contains(flags, "p"), abbrev: strings.Contains(flags, "a"),
		valued: valued, long: map[string][]string{}, longValued: map[string]bool{}, alias: map[byte][]string{},
	}
	s.addLong(long)
	for _, a := range strings.Fields(alias) {
		k, v, _ := strings.Cut(a, ":")
		s.alias[k[0]] = strings.Split(v, ",")
	}
	return s
}

func (s *cmdSpec) addLong(long string) {
	for _, l := range strings.Fields(long) {
		name, keys, mapped := strings.Cut(l, ":")
		if n, ok := strings.CutSuffix(name, "="); ok {
			name = n
			s.longValued[name] = true
		}
		if mapped {
			s.long[name] = strings.Split(keys, ",")
		} else {
			s.long[name] = nil
		}
	}
}

// with returns a copy of s that also knows the short and long options of
// o (kubectl's global flags are valid after the subcommand).
func (s *cmdSpec) with(o *cmdSpec) *cmdSpec {
	c := *s
	c.valued += o.valued
	c.long, c.longValued = map[string][]string{}, map[string]bool{}
	for _, m := range []*cmdSpec{s, o} {
		for k, v := range m.long {
			c.long[k] = v
		}
		for k, v := range m.longValued {
			c.longValued[k] = v
		}
	}
	return &c
}

func subs(parent *cmdSpec, any *cmdSpec, m map[string]*cmdSpec) *cmdSpec {
	parent.subs, parent.anySub = m, any
	return parent
}

// The commands whose options toolgate knows, in groups that are built when
// a rule or a unit first names one of their commands (specGroupOf), each
// once and never changed: a process that decides one call (a hook host's)
// builds the few tables it reads, not all of them.
const (
	specFiles = iota
	specGrep
	specSed
	specTar
	specCurl
	specWget
	specRsync
	specFind
	specGit
	specDocker
	specKubectl
	specNpm
	specPnpm
	specYarn
	specPip
	specApt
	specSystemctl
	specGroups
)

// specGroupOf is the group of the command name, -1 for none.
func specGroupOf(name string) int {
	switch name {
	case "rm", "cp", "mv", "chmod", "chown", "chgrp", "ln", "mkdir", "rmdir", "touch", "shred", "truncate", "ls", "kill", "dd", "unlink":
		return specFiles
	case "grep", "egrep", "fgrep":
		return specGrep
	case "sed":
		return specSed
	case "tar":
		return specTar
	case "curl":
		return specCurl
	case "wget":
		return specWget
	case "rsync":
		return specRsync
	case "find":
		return specFind
	case "git":
		return specGit
	case "docker", "podman":
		return specDocker
	case "kubectl", "oc":
		return specKubectl
	case "npm":
		return specNpm
	case "pnpm":
		return specPnpm
	case "yarn":
		return specYarn
	case "pip", "pip3":
		return specPip
	case "apt-get", "apt":
		return specApt
	case "systemctl":
		return specSystemctl
	}
	return -1
}

// specTable is one group's table, built on first use.
type specTable struct {
	once sync.Once
	m    map[string]*cmdSpec
}

// builtSpecs are the groups' tables (zero until used: nothing is built
// when the process starts).
var builtSpecs [specGroups]specTable

// commandSpec is what toolgate knows of the command name's options (nil
// for a command it does not know).
func commandSpec(name string) *cmdSpec {
	g := specGroupOf(name)
	if g < 0 {
		return nil
	}
	t := &builtSpecs[g]
	t.once.Do(func() { t.m = buildSpecGroup(g) })
	return t.m[name]
}

// buildSpecGroup builds group g's table.
func buildSpecGroup(g int) map[string]*cmdSpec {
	gnu := "cpa"
	switch g {
	case specFiles:
		return map[string]*cmdSpec{
			"rm":       opt(gnu, "", "recursive:-r force:-f interactive:-i dir:-d verbose:-v one-file-system no-preserve-root preserve-root", "R:-r"),
			"cp":       opt(gnu, "St", "recursive:-r archive:-a,-r force:-f interactive:-i link:-l no-dereference:-P dereference:-L preserve parents symbolic-link:-s update:-u verbose:-v target-directory=:-t no-target-directory:-T backup suffix=:-S one-file-system:-x no-clobber:-n remove-destination sparse= reflink", "R:-r a:-a,-r"),
			"mv":       opt(gnu, "St", "force:-f interactive:-i no-clobber:-n target-directory=:-t no-target-directory:-T suffix=:-S update:-u verbose:-v backup strip-trailing-slashes exchange", ""),
			"chmod":    opt(gnu, "", "recursive:-R verbose:-v changes:-c silent:-f quiet:-f reference= preserve-root no-preserve-root", ""),
			"chown":    opt(gnu, "", "recursive:-R verbose:-v changes:-c silent:-f quiet:-f no-dereference:-h dereference from= reference= preserve-root no-preserve-root", ""),
			"chgrp":    opt(gnu, "", "recursive:-R verbose:-v changes:-c silent:-f quiet:-f no-dereference:-h dereference reference= preserve-root no-preserve-root", ""),
			"ln":       opt(gnu, "St", "symbolic:-s force:-f interactive:-i no-dereference:-n logical:-L physical:-P relative:-r verbose:-v target-directory=:-t no-target-directory:-T backup suffix=:-S", ""),
			"mkdir":    opt(gnu, "m", "parents:-p mode=:-m verbose:-v", ""),
			"rmdir":    opt(gnu, "", "parents:-p verbose:-v ignore-fail-on-non-empty", ""),
			"touch":    opt(gnu, "dtr", "no-create:-c date=:-d reference=:-r time=", ""),
			"shred":    opt(gnu, "ns", "force:-f iterations=:-n remove:-u size=:-s verbose:-v exact:-x zero:-z random-source=", ""),
			"truncate": opt(gnu, "sr", "no-create:-c io-blocks:-o reference=:-r size=:-s", ""),
			"ls":       opt(gnu, "wIT", "all:-a almost-all:-A long recursive:-R reverse:-r human-readable:-h directory:-d dereference:-L", ""),
			"kill":     killSpec(),
			"dd":       opt("", "", "", ""),
			"unlink":   opt("pa", "", "", ""),
		}
	case specGrep:
		grep := opt(gnu, "efmABCdD", "recursive:-r dereference-recursive:-r,-R ignore-case:-i regexp=:-e file=:-f files-with-matches:-l files-without-match:-L line-number:-n invert-match:-v extended-regexp:-E fixed-strings:-F basic-regexp:-G perl-regexp:-P word-regexp:-w line-regexp:-x count:-c no-filename:-h with-filename:-H only-matching:-o quiet:-q silent:-q no-messages:-s max-count=:-m after-context=:-A before-context=:-B context=:-C include= exclude= exclude-dir= null:-Z text:-a", "y:-i R:-r,-R")
		return map[string]*cmdSpec{"grep": grep, "egrep": grep, "fgrep": grep}
	case specSed:
		sed := opt(gnu, "efl", "expression=:-e file=:-f in-place:-i quiet:-n silent:-n regexp-extended:-E separate:-s null-data:-z unbuffered:-u line-length=:-l posix sandbox debug follow-symlinks", "r:-E")
		sed.optional = "i" // -i.bak: the suffix is glued or absent
		return map[string]*cmdSpec{"sed": sed}
	case specTar:
		tar := opt(gnu, "fCTXbKNgLVIF", "extract:-x get:-x create:-c list:-t append:-r update:-u file=:-f directory=:-C gzip:-z gunzip:-z ungzip:-z bzip2:-j xz:-J zstd verbose:-v keep-old-files:-k overwrite remove-files absolute-names:-P to-stdout:-O preserve-permissions:-p same-permissions:-p exclude= files-from=:-T exclude-from=:-X listed-incremental=:-g use-compress-program=:-I auto-compress:-a diff:-d compare:-d delete concatenate:-A catenate:-A wildcards strip-components= no-same-owner same-owner dereference:-h touch:-m interactive:-w one-file-system numeric-owner transform= xform= owner= group= mode= mtime= null unlink-first:-U recursive-unlink skip-old-files keep-newer-files to-command= checkpoint-action= sparse:-S verify:-W multi-volume:-M info-script=:-F tape-length=:-L label=:-V blocking-factor=:-b newer=:-N after-date=:-N starting-file=:-K", "")
		tar.tarOld = true
		return map[string]*cmdSpec{"tar": tar}
	case specCurl:
		return map[string]*cmdSpec{"curl": opt("cpa", "odHXuAebcTFxwmrEKCYyzUQt", "output=:-o data=:-d header=:-H request=:-X user=:-u user-agent=:-A referer=:-e cookie=:-b cookie-jar=:-c upload-file=:-T form=:-F proxy=:-x write-out=:-w max-time=:-m range=:-r cert=:-E config=:-K continue-at=:-C silent:-s show-error:-S location:-L insecure:-k remote-name:-O include:-i head:-I verbose:-v fail:-f get:-G compressed data-binary= data-raw= data-urlencode= data-ascii= json= output-dir= url= create-dirs remote-name-all", "")}
	case specWget:
		return map[string]*cmdSpec{"wget": opt(gnu, "OoaPtTUeiBwQlARDIXn", "output-document=:-O output-file=:-o append-output=:-a directory-prefix=:-P tries=:-t timeout=:-T user-agent=:-U execute=:-e input-file=:-i base=:-B wait=:-w quota=:-Q level=:-l accept=:-A reject=:-R domains=:-D include-directories=:-I exclude-directories=:-X recursive:-r mirror:-m quiet:-q verbose:-v no-verbose:-n=v continue:-c no-clobber:-n=c no-parent:-n=p no-directories:-n=d no-host-directories:-n=H page-requisites:-p convert-links:-k background:-b timestamping:-N spider delete-after no-check-certificate post-data= post-file= body-data= body-file= method= header= user= password=", "")}
	case specRsync:
		return map[string]*cmdSpec{"rsync": opt(gnu, "eBfT", "archive:-a,-r verbose:-v compress:-z recursive:-r dry-run:-n rsh=:-e delete:--delete del:--delete delete-before:--delete,--delete-before delete-after:--delete,--delete-after delete-during:--delete,--delete-during delete-delay:--delete,--delete-delay delete-excluded:--delete,--delete-excluded delete-missing-args:--delete,--delete-missing-args remove-source-files exclude= include= exclude-from= include-from= filter=:-f force links:-l perms:-p times:-t group:-g owner:-o checksum:-c update:-u inplace partial progress human-readable:-h relative:-R", "a:-a,-r")}
	case specFind:
		return map[string]*cmdSpec{"find": {find: true}}
	case specGit:
		// git: global options stop at the subcommand; every subcommand's
		// options cluster and permute (parse-options), long ones abbreviate.
		git := opt("", "Cc", "git-dir= work-tree= namespace= exec-path super-prefix= config-env= no-pager paginate:-p bare literal-pathspecs no-replace-objects no-optional-locks", "")
		gitSub := func(valued, long, alias string) *cmdSpec { return opt(gnu, valued, long, alias) }
		push := gitSub("o", "force:-f force-with-lease force-if-includes delete:-d tags all mirror set-upstream:-u verbose:-v quiet:-q dry-run:-n porcelain no-verify verify atomic prune follow-tags repo= push-option=:-o receive-pack= exec= signed ipv4:-4 ipv6:-6 recurse-submodules= thin no-thin progress", "")
		push.plusForce = true
		commit := func(s *cmdSpec) *cmdSpec { s.optional = "S"; return s } // -S[keyid]
		subs(git, gitSub("", "", ""), map[string]*cmdSpec{
			"push":     push,
			"reset":    gitSub("", "hard soft mixed merge keep quiet:-q patch:-p recurse-submodules no-recurse-submodules pathspec-from-file= intent-to-add:-N", ""),
			"clean":    gitSub("e", "force:-f dry-run:-n interactive:-i quiet:-q exclude=:-e", ""),
			"checkout": gitSub("bB", "force:-f quiet:-q patch:-p track:-t detach orphan= ours:-2 theirs:-3 merge:-m conflict= overwrite-ignore no-overwrite-ignore ignore-other-worktrees recurse-submodules", ""),
			"switch":   gitSub("cC", "create=:-c force-create=:-C force:-f discard-changes:-f detach:-d guess track:-t orphan= merge:-m quiet:-q", ""),
			"restore":  gitSub("s", "source=:-s staged:-S worktree:-W patch:-p ours:-2 theirs:-3 merge:-m overlay no-overlay quiet:-q", ""),
			"branch":   gitSub("u", "delete:-d force:-f move:-m copy:-c remotes:-r all:-a list:-l verbose:-v set-upstream-to=:-u unset-upstream track:-t no-track quiet:-q contains= merged= no-merged= show-current", "D:-d,-f M:-m,-f C:-c,-f"),
			"commit":   commit(gitSub("mFCc", "all:-a message=:-m file=:-F no-verify:-n signoff:-s verbose:-v quiet:-q reuse-message=:-C reedit-message=:-c edit:-e no-edit patch:-p interactive amend allow-empty allow-empty-message fixup= squash= author= date= gpg-sign:-S no-gpg-sign dry-run only:-o include:-i", "")),
			"rebase":   gitSub("sX", "interactive:-i onto= root continue abort skip quit autosquash autostash exec=:-x force-rebase:-f strategy=:-s strategy-option=:-X rebase-merges:-r quiet:-q verbose:-v", ""),
			"rm":       gitSub("", "force:-f recursive:-r cached dry-run:-n quiet:-q ignore-unmatch", ""),
			"add":      gitSub("", "all:-A force:-f update:-u patch:-p interactive:-i dry-run:-n verbose:-v intent-to-add:-N", ""),
			"stash":    gitSub("m", "message=:-m keep-index:-k include-untracked:-u all:-a patch:-p quiet:-q", ""),
			"tag":      gitSub("muF", "delete:-d force:-f annotate:-a sign:-s message=:-m list:-l file=:-F local-user=:-u", ""),
			"clone":    gitSub("obcju", "origin=:-o branch=:-b config=:-c depth= recursive recurse-submodules bare mirror quiet:-q verbose:-v", ""),
			"fetch":    gitSub("j", "all prune:-p force:-f tags:-t depth= dry-run quiet:-q verbose:-v", ""),
			"pull":     gitSub("sX", "rebase:-r force:-f all prune:-p quiet:-q verbose:-v ff-only no-ff ff strategy=:-s", ""),
			"merge":    gitSub("msX", "message=:-m strategy=:-s strategy-option=:-X ff-only no-ff ff squash abort continue no-commit no-edit quiet:-q", ""),
		})
		return map[string]*cmdSpec{"git": git}

	case specDocker:
		// docker: global options before the subcommand; management commands
		// (container, image, …) take a subcommand of their own, read like the
		// top-level one (docker container rm is docker rm).
		docker := opt("", "Hcl", "host=:-H context=:-c config= log-level=:-l debug:-D tls tlsverify tlscacert= tlscert= tlskey=", "")
		dockerRun := opt("c", "vepwumchlaL", "volume=:-v env=:-e publish=:-p workdir=:-w user=:-u memory=:-m cpu-shares=:-c hostname=:-h label=:-l attach=:-a detach:-d interactive:-i tty:-t publish-all:-P rm privileged name= network= net= entrypoint= mount= env-file= cap-add= cap-drop= security-opt= pid= ipc= userns= device= add-host= dns= platform= pull= restart= runtime= init read-only volumes-from= tmpfs= gpus= ulimit=", "")
		dockerExec := opt("c", "euw", "env=:-e user=:-u workdir=:-w detach:-d interactive:-i tty:-t privileged env-file=", "")
		docker.nested = map[string]bool{"container": true, "image": true, "volume": true, "network": true, "system": true, "builder": true, "buildx": true, "compose": true, "context": true, "plugin": true, "secret": true, "service": true, "stack": true, "swarm": true, "node": true, "config": true, "trust": true, "manifest": true}
		docker.nestedSame = true
		subs(docker, opt("cp", "", "force:-f all:-a volumes quiet:-q", ""), map[string]*cmdSpec{
			"rm":     opt("cp", "", "force:-f volumes:-v link:-l", ""),
			"rmi":    opt("cp", "", "force:-f no-prune", ""),
			"run":    dockerRun,
			"create": dockerRun,
			"exec":   dockerExec,
			"stop":   opt("cp", "ts", "time=:-t signal=:-s", ""),
			"kill":   opt("cp", "s", "signal=:-s", ""),
			"prune":  opt("cp", "", "force:-f all:-a volumes filter=", ""),
			"push":   opt("cp", "", "all-tags:-a quiet:-q disable-content-trust platform=", ""),
			"build":  opt("cp", "tf", "tag=:-t file=:-f build-arg= target= platform= no-cache pull push quiet:-q", ""),
			"down":   opt("cp", "t", "volumes:-v rmi= remove-orphans timeout=:-t", ""),
		})
		docker.subAlias = map[string]string{"remove": "rm", "container rm": "rm", "container remove": "rm", "container run": "run", "container create": "create", "container exec": "exec", "container stop": "stop", "container kill": "kill", "image rm": "rmi", "image remove": "rmi", "image push": "push", "image build": "build"}
		return map[string]*cmdSpec{"docker": docker, "podman": docker}

	case specKubectl:
		// kubectl: global flags anywhere (pflag interspersed).
		kglobal := opt("", "ns", "namespace=:-n context= kubeconfig= server=:-s cluster= user= token= as= as-group= request-timeout= insecure-skip-tls-verify v=", "")
		kubectl := opt("p", "ns", "", "").with(kglobal)
		kube := func(valued, long string) *cmdSpec { return opt("cp", valued, long, "").with(kglobal) }
		kubectl.nested = map[string]bool{"rollout": true, "config": true, "auth": true, "set": true, "top": true, "certificate": true, "create": true}
		subs(kubectl, kube("fol", "filename=:-f output=:-o selector=:-l all-namespaces:-A recursive:-R force dry-run= all"), map[string]*cmdSpec{
			"delete": kube("fol", "all force grace-period= now filename=:-f selector=:-l recursive:-R wait= ignore-not-found cascade= output=:-o all-namespaces:-A field-selector= timeout="),
			"apply":  kube("fol", "filename=:-f force prune server-side dry-run= output=:-o selector=:-l recursive:-R force-conflicts overwrite"),
			"exec":   kube("cf", "container=:-c stdin:-i tty:-t filename=:-f quiet:-q"),
			"drain":  kube("l", "force delete-emptydir-data delete-local-data ignore-daemonsets grace-period= disable-eviction selector=:-l timeout="),
			"scale":  kube("fl", "replicas= filename=:-f selector=:-l all current-replicas="),
		})
		kinds := map[string]string{}
		for _, k := range strings.Fields("namespace:ns,namespaces pod:po,pods deployment:deploy,deployments service:svc,services replicaset:rs,replicasets statefulset:sts,statefulsets daemonset:ds,daemonsets configmap:cm,configmaps secret:secrets persistentvolume:pv,persistentvolumes persistentvolumeclaim:pvc,persistentvolumeclaims node:no,nodes ingress:ing,ingresses serviceaccount:sa,serviceaccounts customresourcedefinition:crd,crds,customresourcedefinitions job:jobs cronjob:cj,cronjobs role:roles rolebinding:rolebindings clusterrole:clusterroles clusterrolebinding:clusterrolebindings") {
			name, short, _ := strings.Cut(k, ":")
			kinds[name] = name
			for _, s := range strings.Split(short, ",") {
				kinds[s] = name
			}
		}
		for _, sub := range []*cmdSpec{kubectl.anySub, kubectl.subs["delete"], kubectl.subs["scale"]} {
			sub.kinds = kinds
		}
		return map[string]*cmdSpec{"kubectl": kubectl, "oc": kubectl}

	case specNpm:
		// npm (nopt): options anywhere, clustered shorthands, abbreviations;
		// subcommand aliases read as their full name.
		npmLong := "global:-g save-dev:-D save:-S save-exact:-E save-optional:-O save-prod:-P force:-f yes:-y workspace=:-w workspaces prefix= registry= tag= otp= omit= include= loglevel= access= dry-run ignore-scripts legacy-peer-deps no-save"
		npm := opt("cpa", "w", npmLong, "")
		subs(npm, opt("cpa", "w", npmLong, ""), map[string]*cmdSpec{})
		npm.subAlias = map[string]string{
			"i": "install", "in": "install", "ins": "install", "inst": "install", "insta": "install", "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install", "isntall": "install", "add": "install",
			"un": "uninstall", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall", "r": "uninstall",
			"run-script": "run", "rum": "run", "urn": "run", "t": "test", "tst": "test", "x": "exec",
			"clean-install": "ci", "ic": "ci", "install-clean": "ci", "isntall-clean": "ci", "up": "update", "upgrade": "update", "udpate": "update",
		}
		npm.deref = npmDeref
		return map[string]*cmdSpec{"npm": npm}
	case specPnpm:
		pnpm := opt("cp", "C", "global:-g save-dev:-D save-prod:-P save-optional:-O save-exact:-E recursive:-r filter= dir=:-C force", "")
		subs(pnpm, opt("cp", "C", "global:-g save-dev:-D save-prod:-P save-optional:-O save-exact:-E recursive:-r filter= dir=:-C force", ""), map[string]*cmdSpec{})
		pnpm.subAlias = map[string]string{"i": "install", "rm": "remove", "uninstall": "remove", "un": "remove", "up": "update", "upgrade": "update", "run-script": "run", "t": "test"}
		return map[string]*cmdSpec{"pnpm": pnpm}
	case specYarn:
		yarn := opt("cp", "", "global dev:-D exact:-E force", "")
		subs(yarn, opt("cp", "", "dev:-D exact:-E force peer:-P optional:-O", ""), map[string]*cmdSpec{})
		return map[string]*cmdSpec{"yarn": yarn}

	case specPip:
		pip := opt("", "", "isolated quiet:-q verbose:-v", "")
		subs(pip, opt("cpa", "reic", "requirement=:-r editable=:-e index-url=:-i constraint=:-c upgrade:-U yes:-y user target=:-t force-reinstall break-system-packages no-deps pre quiet:-q verbose:-v", ""), map[string]*cmdSpec{})
		return map[string]*cmdSpec{"pip": pip, "pip3": pip}

	case specApt:
		apt := opt("", "co", "", "")
		subs(apt, opt("cpa", "co", "yes:-y assume-yes:-y purge auto-remove autoremove force-yes allow-remove-essential allow-downgrades allow-change-held-packages no-install-recommends fix-broken:-f reinstall quiet:-q simulate:-s dry-run:-s", ""), map[string]*cmdSpec{})
		return map[string]*cmdSpec{"apt-get": apt, "apt": apt}

	case specSystemctl:
		systemctl := opt("cpa", "tpH", "user system now force:-f quiet:-q type=:-t property=:-p host=:-H all:-a no-block runtime", "")
		subs(systemctl, systemctl, map[string]*cmdSpec{})
		return map[string]*cmdSpec{"systemctl": systemctl}
	}
	return nil
}

// canonUnit is a command in its canonical option spelling.
type canonUnit struct {
	name, base string // the command name as written, and its base name when written with a path ("" else)
	sub        string // subcommand words joined by spaces ("push", "container rm")
	opts       []string
	operands   []string
	dashDash   bool // "--" ended the options
}

// optParser reads words into a canonUnit. As a rule parser (rule true) it
// refuses option words with a wildcard in their name.
type optParser struct {
	u    canonUnit
	rule bool
	// lastValue is set when the last word was taken as an option's value.
	lastValue bool
}

// canonicalize reads words (the command name first). ok is false when the
// words cannot be read as a command (no words, a wildcard in the command
// or subcommand name or in an option's name, for rules).
func canonicalize(words []string, rule bool) (canonUnit, bool) {
	p, ok := parseWords(words, rule)
	return p.u, ok
}

func parseWords(words []string, rule bool) (optParser, bool) {
	p := optParser{rule: rule}
	if len(words) == 0 || words[0] == "" || (rule && hasWild(words[0])) {
		return p, false
	}
	// Options and operands share one backing array; a cluster that yields
	// more options than there are words grows opts apart.
	n := len(words)
	buf := make([]string, 2*n)
	p.u.opts, p.u.operands = buf[:0:n], buf[n:n:2*n]
	p.u.name = words[0]
	key := words[0]
	if strings.Contains(key, "/") {
		if b := path.Base(key); b != "/" && b != "." && b != key {
			p.u.base, key = b, b
		}
	}
	spec := commandSpec(key)
	if !p.read(spec, words[1:]) {
		return p, false
	}
	slices.Sort(p.u.opts)
	p.u.opts = slices.Compact(p.u.opts)
	return p, true
}

func hasWild(s string) bool { return strings.ContainsAny(s, "*?") }

func (p *optParser) read(spec *cmdSpec, args []string) bool {
	switch {
	case spec == nil:
		return p.generic(args)
	case spec.find:
		return p.findExpr(args)
	}
	if spec.tarOld && len(args) > 0 && isLetters(args[0]) {
		args = append([]string{"-" + args[0]}, args[1:]...)
	}
	if spec.signals {
		args = signalArgs(args)
	}
	if spec.subs == nil {
		_, ok := p.options(spec, args, false)
		return ok
	}
	// Options before the subcommand, then the subcommand.
	rest, ok := p.options(spec, args, true)
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	sub := rest[0]
	if p.rule && hasWild(sub) {
		return false
	}
	rest = rest[1:]
	if spec.nested[sub] && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if p.rule && hasWild(rest[0]) {
			return false
		}
		sub, rest = sub+" "+rest[0], rest[1:]
	}
	if a, ok := spec.subAlias[sub]; ok {
		sub = a
	} else if spec.deref != nil && !strings.Contains(sub, " ") {
		if d := spec.deref(sub); d != "" {
			sub = d
		}
	}
	p.u.sub = sub
	next := spec.anySub
	last := sub
	if i := strings.LastIndexByte(sub, ' '); i >= 0 {
		last = sub[i+1:]
	}
	if s, ok := spec.subs[sub]; ok {
		next = s
	} else if s, ok := spec.subs[last]; ok && spec.nestedSame {
		next = s
	}
	_, ok = p.options(next, rest, false)
	return ok
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// options reads options and operands with spec. With untilOperand it
// stops at the first operand and returns the words from there on.
func (p *optParser) options(spec *cmdSpec, args []string, untilOperand bool) ([]string, bool) {
	ended := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		p.lastValue = false
		switch {
		case ended || len(w) < 2 || w[0] != '-':
			if untilOperand && !ended {
				return args[i:], true
			}
			if spec.kinds != nil && len(p.u.operands) == 0 {
				p.kind(spec, w)
			} else {
				p.u.operands = append(p.u.operands, w)
			}
			if !spec.permute {
				ended = true
			}
			if spec.plusForce && len(w) > 1 && w[0] == '+' {
				p.u.opts = append(p.u.opts, "-f")
			}
		case w == "--":
			p.u.dashDash = true
			if untilOperand {
				return args[i+1:], true
			}
			ended = true
		case w[1] == '-':
			name, val, hasVal := strings.Cut(w[2:], "=")
			if p.rule && hasWild(name) {
				return nil, false
			}
			keys, valued, known := spec.longOpt(name)
			if !known {
				// Kept as written ("--name" or "--name=value"), without
				// a copy.
				p.u.opts = append(p.u.opts, w)
				continue
			}
			if valued && !hasVal && i+1 < len(args) {
				i++
				val, hasVal = args[i], true
				p.lastValue = true
			}
			for _, k := range keys {
				p.add(k, val, hasVal)
			}
		case spec.cluster:
			for j := 1; j < len(w); j++ {
				c := w[j]
				if p.rule && (c == '*' || c == '?') {
					return nil, false
				}
				if strings.IndexByte(spec.valued, c) >= 0 {
					val, hasVal := w[j+1:], j+1 < len(w)
					if !hasVal && i+1 < len(args) {
						i++
						val, hasVal = args[i], true
						p.lastValue = true
					}
					p.add(string([]byte{'-', c}), val, hasVal)
					break
				}
				if strings.IndexByte(spec.optional, c) >= 0 {
					p.add(string([]byte{'-', c}), w[j+1:], j+1 < len(w))
					break
				}
				if keys, ok := spec.alias[c]; ok {
					for _, k := range keys {
						p.add(k, "", false)
					}
					continue
				}
				p.u.opts = append(p.u.opts, shortKey(c))
			}
		default:
			if p.rule && hasWild(w) {
				return nil, false
			}
			if len(w) == 2 && strings.IndexByte(spec.valued, w[1]) >= 0 && i+1 < len(args) {
				i++
				p.add(w, args[i], true)
				p.lastValue = true
				continue
			}
			p.u.opts = append(p.u.opts, w)
		}
	}
	return nil, true
}

// kind appends a kubectl resource operand in its canonical spelling.
func (p *optParser) kind(spec *cmdSpec, w string) {
	k, name, slash := strings.Cut(w, "/")
	if p.rule && hasWild(k) {
		p.u.operands = append(p.u.operands, w)
		return
	}
	if c, ok := spec.kinds[strings.ToLower(k)]; ok {
		k = c
	}
	p.u.operands = append(p.u.operands, k)
	if slash {
		p.u.operands = append(p.u.operands, name)
	}
}

// shortKeys are the keys of single short options, so that splitting a
// cluster does not allocate.
var shortKeys = func() (k [128]string) {
	for c := 33; c < 127; c++ {
		k[c] = "-" + string(rune(c))
	}
	return k
}()

func shortKey(c byte) string {
	if c < 128 && shortKeys[c] != "" {
		return shortKeys[c]
	}
	return "-" + string([]byte{c})
}

// longOpt maps a long option name to its keys; known is false for a name
// the table does not list (kept as written).
func (s *cmdSpec) longOpt(name string) (keys []string, valued, known bool) {
	if k, ok := s.long[name]; ok {
		return k, s.longValued[name] || (len(k) == 1 && len(k[0]) == 2 && strings.IndexByte(s.valued, k[0][1]) >= 0), ok && k != nil
	}
	if !s.abbrev || name == "" {
		return nil, false, false
	}
	match := ""
	for n := range s.long {
		if strings.HasPrefix(n, name) {
			if match != "" {
				return nil, false, false // ambiguous
			}
			match = n
		}
	}
	if match == "" {
		return nil, false, false
	}
	k := s.long[match]
	valued = s.longValued[match] || (len(k) == 1 && len(k[0]) == 2 && strings.IndexByte(s.valued, k[0][1]) >= 0)
	if k == nil {
		return []string{"--" + match}, valued, true
	}
	return k, valued, true
}

func (p *optParser) add(key, val string, hasVal bool) {
	if hasVal && !strings.Contains(key, "=") {
		key += "=" + val
	}
	p.u.opts = append(p.u.opts, key)
}

// generic reads a command toolgate knows nothing about: its options are
// the words before the first operand, each as written.
func (p *optParser) generic(args []string) bool {
	for i, w := range args {
		if w == "--" {
			p.u.dashDash = true
			p.u.operands = append(p.u.operands, args[i+1:]...)
			return true
		}
		if len(w) < 2 || w[0] != '-' {
			p.u.operands = append(p.u.operands, args[i:]...)
			return true
		}
		if p.rule && hasWild(w) {
			return false
		}
		p.u.opts = append(p.u.opts, w)
	}
	return true
}

// findArity is how many words a find primary takes; -exec and its kin
// take words up to ";" or "+".
var findArity = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
	"-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-samefile": 1,
	"-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-used": 1, "-size": 1, "-perm": 1,
	"-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-inum": 1, "-links": 1, "-maxdepth": 1, "-mindepth": 1,
	"-fprint": 1, "-fprint0": 1, "-fls": 1, "-printf": 1, "-fprintf": 2, "-fstype": 1, "-context": 1,
	"-files0-from": 1, "-regextype": 1, "-D": 1,
	"-exec": -1, "-execdir": -1, "-ok": -1, "-okdir": -1,
}

// findOperators are words of a find expression that are not primaries.
var findOperators = map[string]bool{"(": true, ")": true, "!": true, ",": true, "-not": true, "-a": true, "-and": true, "-o": true, "-or": true}

// findExpr reads find: leading -H/-L/-P, the start paths (the operands),
// then the expression, whose primaries are options with their arguments
// (so "find . -type f -delete" has the option -delete wherever it
// stands); operators are left out.
func (p *optParser) findExpr(args []string) bool {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O")) {
		p.u.opts = append(p.u.opts, args[i])
		i++
	}
	for i < len(args) && !findOperators[args[i]] && !(len(args[i]) > 1 && args[i][0] == '-') {
		p.u.operands = append(p.u.operands, args[i])
		i++
	}
	for ; i < len(args); i++ {
		p.lastValue = false
		w := args[i]
		if findOperators[w] || len(w) < 2 || w[0] != '-' {
			continue
		}
		if p.rule && hasWild(w) {
			return false
		}
		n := findArity[w]
		switch {
		case n < 0:
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			end := min(j+1, len(args))
			p.add(w, strings.Join(args[i+1:end], " "), true)
			p.lastValue = end == len(args)
			i = end - 1
		case n > 0 && i+n < len(args):
			p.add(w, strings.Join(args[i+1:i+1+n], " "), true)
			i += n
			p.lastValue = true
		default:
			p.u.opts = append(p.u.opts, w)
		}
	}
	return true
}

// text is the canonical spelling: command words, options in order, operands.
func (u *canonUnit) text() string {
	var sb strings.Builder
	sb.WriteString(u.name)
	if u.sub != "" {
		sb.WriteByte(' ')
		sb.WriteString(u.sub)
	}
	for _, o := range u.opts {
		sb.WriteByte(' ')
		sb.WriteString(o)
	}
	for i, o := range u.operands {
		if i == 0 && u.dashDash && u.dashOperand() {
			sb.WriteString(" --")
		}
		sb.WriteByte(' ')
		sb.WriteString(o)
	}
	return sb.String()
}

// dashOperand reports whether an operand starts with "-": the canonical
// spelling then ends the options with "--".
func (u *canonUnit) dashOperand() bool {
	for _, o := range u.operands {
		if len(o) > 1 && o[0] == '-' {
			return true
		}
	}
	return false
}

// npmDeref reads an npm subcommand as npm does (lib/utils/cmd-list.js
// deref): camelCase as kebab-case, a command, an alias, or a unique
// abbreviation of a command or alias ("npm pub" is npm publish).
func npmDeref(c string) string {
	if strings.ContainsAny(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		var sb strings.Builder
		for _, r := range c {
			if 'A' <= r && r <= 'Z' {
				sb.WriteByte('-')
				r += 'a' - 'A'
			}
			sb.WriteRune(r)
		}
		c = sb.String()
	}
	if slices.Contains(npmCommands, c) {
		return c
	}
	if a, ok := npmAliases[c]; ok {
		return a
	}
	match := ""
	consider := func(w string) bool {
		if w == c {
			match = w
			return false
		}
		if strings.HasPrefix(w, c) {
			if match != "" && match != w {
				match = "-"
				return false
			}
			match = w
		}
		return true
	}
	for _, w := range npmCommands {
		if !consider(w) {
			break
		}
	}
	if match != "-" {
		for w := range npmAliases {
			if !consider(w) {
				break
			}
		}
	}
	if match == "-" || match == "" {
		return ""
	}
	for i := 0; i < 4; i++ {
		a, ok := npmAliases[match]
		if !ok {
			break
		}
		match = a
	}
	return match
}

// npmCommands and npmAliases are npm 11's command list and aliases
// (lib/utils/cmd-list.js), for npmDeref.
var npmCommands = []string{
	"access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion", "config",
	"dedupe", "deny-scripts", "deprecate", "diff", "dist-tag", "docs", "doctor", "edit", "exec",
	"explain", "explore", "find-dupes", "fund", "get", "help", "help-search", "init", "install",
	"install-ci-test", "install-scripts", "install-test", "link", "ll", "login", "logout", "ls",
	"org", "outdated", "owner", "pack", "ping", "pkg", "prefix", "profile", "prune", "publish",
	"query", "rebuild", "repo", "restart", "root", "run", "sbom", "search", "set", "shrinkwrap",
	"stage", "star", "stars", "start", "stop", "team", "test", "token", "trust", "undeprecate",
	"uninstall", "unpublish", "unstar", "update", "version", "view", "whoami",
}

var npmAliases = map[string]string{
	"author":             "owner",
	"home":               "docs",
	"issues":             "bugs",
	"info":               "view",
	"show":               "view",
	"find":               "search",
	"add":                "install",
	"unlink":             "uninstall",
	"remove":             "uninstall",
	"rm":                 "uninstall",
	"r":                  "uninstall",
	"un":                 "uninstall",
	"rb":                 "rebuild",
	"list":               "ls",
	"ln":                 "link",
	"create":             "init",
	"i":                  "install",
	"it":                 "install-test",
	"cit":                "install-ci-test",
	"u":                  "update",
	"up":                 "update",
	"c":                  "config",
	"s":                  "search",
	"se":                 "search",
	"tst":                "test",
	"t":                  "test",
	"ddp":                "dedupe",
	"v":                  "view",
	"run-script":         "run",
	"clean-install":      "ci",
	"clean-install-test": "install-ci-test",
	"x":                  "exec",
	"why":                "explain",
	"la":                 "ll",
	"verison":            "version",
	"ic":                 "ci",
	"innit":              "init",
	"in":                 "install",
	"ins":                "install",
	"inst":               "install",
	"insta":              "install",
	"instal":             "install",
	"isnt":               "install",
	"isnta":              "install",
	"isntal":             "install",
	"isntall":            "install",
	"install-clean":      "ci",
	"isntall-clean":      "ci",
	"hlep":               "help",
	"dist-tags":          "dist-tag",
	"upgrade":            "update",
	"udpate":             "update",
	"rum":                "run",
	"sit":                "install-ci-test",
	"urn":                "run",
	"ogr":                "org",
	"add-user":           "adduser",
}
