package main

import (
	"errors"
	"flag"
	"strings"
)

// parseInit reads init's arguments and returns the account to create.
func (a *app) parseInit(args []string) (string, error) {
	inf := flag.NewFlagSet("init", flag.ContinueOnError)
	inf.SetOutput(a.stderr)
	account := inf.String("account", "local", "the account to create")
	if err := inf.Parse(args); err != nil {
		return "", err
	}
	if inf.NArg() != 0 {
		return "", errors.New("usage: init [--account NAME]")
	}
	return *account, nil
}

// flagsFirst moves the server's own flags that come after a subcommand in
// front of it, so that "server init -data X" means "server -data X init"
// (the flag package stops at the first argument that is not a flag, and
// the store would otherwise be opened in the default -data before init
// saw its arguments). The subcommand's own flags (-account, …) stay where
// they are; so does everything after "--".
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	sub := firstArgument(fs, args)
	if sub < 0 {
		return args
	}
	front := append([]string{}, args[:sub]...)
	rest := []string{args[sub]}
	for i := sub + 1; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		f, hasValue := lookupFlag(fs, arg)
		if f == nil {
			rest = append(rest, arg)
			continue
		}
		front = append(front, arg)
		if !hasValue && !isBool(f) && i+1 < len(args) {
			i++
			front = append(front, args[i])
		}
	}
	return append(front, rest...)
}

// firstArgument returns the index of the first argument that is not a
// flag of fs or a flag's value, -1 when there is none.
func firstArgument(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return -1
		case len(arg) < 2 || arg[0] != '-':
			return i
		}
		if f, hasValue := lookupFlag(fs, arg); f != nil && !hasValue && !isBool(f) {
			i++ // its value
		}
	}
	return -1
}

// lookupFlag returns the flag of fs that arg ("-name", "--name",
// "-name=value") names, and whether arg carries its value.
func lookupFlag(fs *flag.FlagSet, arg string) (*flag.Flag, bool) {
	if !strings.HasPrefix(arg, "-") {
		return nil, false
	}
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasValue := strings.Cut(name, "=")
	return fs.Lookup(name), hasValue
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
