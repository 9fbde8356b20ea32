package conform

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// ConformCommit is the upstream PyPTO commit the conformance suite reads
// (hw-native-sys/pypto, 2026-08-21): its distributed system tests and
// examples are the programs the workbench must speak.
const ConformCommit = "e2d0f78ae"

// ConformDirs are the upstream directories whose Python files make the
// suite: the system tests, recursively, and the examples.
var ConformDirs = []string{"tests/st/distributed", "examples/distributed"}

// ConformEnv names the environment variable that points at a local copy
// of upstream PyPTO: a bare git directory or a checkout.
const ConformEnv = "PLD_UPSTREAM"

// ConformNeed says what the suite needs when it has no snapshot; the
// command and the test print it rather than passing silently.
const ConformNeed = "the conformance suite reads upstream PyPTO's own programs, which are not part of this repository: " +
	"clone https://github.com/hw-native-sys/pypto (any clone holding commit " + ConformCommit + ") and set " +
	ConformEnv + " to its path (a checkout or a bare git directory), or pass --upstream DIR"

// Snapshot reads files of upstream PyPTO at ConformCommit from a local git
// directory, without a work tree and without touching the network.
type Snapshot struct {
	dir    string // the path handed over
	gitDir string // its git directory
	commit string
}

// OpenSnapshot opens dir (a checkout or a bare git directory) at commit.
// It fails, saying why, when dir is no git directory or lacks the commit.
func OpenSnapshot(dir, commit string) (*Snapshot, error) {
	if dir == "" {
		return nil, fmt.Errorf("%s", ConformNeed)
	}
	gitDir := dir
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		if fi.IsDir() {
			gitDir = filepath.Join(dir, ".git")
		} else {
			// A worktree's .git is a file naming its git directory; git
			// resolves it when run inside the work tree.
			gitDir = ""
		}
	}
	s := &Snapshot{dir: dir, gitDir: gitDir, commit: commit}
	if _, err := s.git("cat-file", "-e", commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%s holds no commit %s (%v): %s", dir, commit, err, ConformNeed)
	}
	return s, nil
}

// Commit is the commit the snapshot reads.
func (s *Snapshot) Commit() string { return s.commit }

func (s *Snapshot) git(args ...string) ([]byte, error) {
	var full []string
	if s.gitDir != "" {
		full = append(full, "--git-dir="+s.gitDir)
	} else {
		full = append(full, "-C", s.dir)
	}
	cmd := exec.Command("git", append(full, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

// List returns the .py files under the suite's directories, sorted.
func (s *Snapshot) List(dirs ...string) ([]string, error) {
	out, err := s.git(append([]string{"ls-tree", "-r", "--name-only", s.commit, "--"}, dirs...)...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(f, ".py") {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files, nil
}

// Read returns one file at the snapshot's commit.
func (s *Snapshot) Read(path string) ([]byte, error) {
	return s.git("show", s.commit+":"+path)
}
