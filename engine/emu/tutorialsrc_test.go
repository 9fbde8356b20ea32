package emu_test

import (
	"os"
	"os/exec"
	"path/filepath"
)

// tutorialCommit is the upstream side branch whose examples/distributed
// holds the tutorial programs 01..16 the lessons were written from.
const tutorialCommit = "33068039b"

// readTutorial reads one tutorial program from $PLD_UPSTREAM: a directory
// holding the files themselves, or a clone of upstream PyPTO (a checkout
// or a bare git directory, the one the conformance suite reads), from
// which it is read at tutorialCommit.
func readTutorial(dir, file string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(dir, file))
	if err == nil {
		return src, nil
	}
	args := []string{"--git-dir=" + dir}
	if fi, serr := os.Stat(filepath.Join(dir, ".git")); serr == nil && fi.IsDir() {
		args = []string{"-C", dir}
	}
	out, gerr := exec.Command("git", append(args, "show", tutorialCommit+":examples/distributed/"+file)...).Output()
	if gerr != nil {
		return nil, err
	}
	return out, nil
}
