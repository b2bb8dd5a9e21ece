//go:build !profile

package main

// startProfile does nothing in a release build (see profile_on.go).
func startProfile() (stop func()) { return func() {} }
