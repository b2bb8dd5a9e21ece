// Package paths computes the forms of a path value that policy rules are
// matched against: the spelled identity (as typed, absolute,
// cwd-relative) and the real identity (canonical, symlinks resolved left to
// right like the kernel, and its cwd-relative form), and answers whether a
// path lies outside the working directory.
package paths
