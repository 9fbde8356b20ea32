package server

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/platform"
	"pldworkbench/kernels"
	"pldworkbench/tutorials/check"
)

// stepCheck is what a step run is checked against: the golden of
// Kernel's entry Entry as its header writes it ("{P}" unexpanded). Entry
// is empty when the post named an entry the kernel does not have: then
// there is no golden to check against.
type stepCheck struct {
	Kernel string
	Entry  string
	File   string // the kernel's file name, for diagnostics
}

// Defaults of a run's settings (API.md).
const (
	defaultFill     = "randn"
	defaultSeed     = 1
	defaultSchedule = "fair"
)

// normalize validates a run request and fills in the defaults.
func normalize(req *runRequest) (Settings, *stepCheck, error) {
	st := Settings{
		Step: req.Step, Variant: req.Variant, Kernel: strings.TrimSpace(req.Kernel), Ranks: req.Ranks, Entry: strings.TrimSpace(req.Entry),
		Fill: req.Fill, Seed: defaultSeed, Schedule: req.Schedule, Platform: req.Platform,
	}
	if req.Seed != nil {
		st.Seed = *req.Seed
	}
	if len(req.Args) > 0 {
		st.Args = req.Args
	}
	if st.Fill == "" {
		st.Fill = defaultFill
	}
	if _, err := emu.ParseFill(st.Fill); err != nil {
		return st, nil, errorf(fiber.StatusBadRequest, "fill is one of index, randn, ones, zeros", "%v", err)
	}
	if st.Schedule == "" {
		st.Schedule = defaultSchedule
	}
	if err := emu.ValidateSchedule(st.Schedule); err != nil {
		return st, nil, errorf(fiber.StatusBadRequest, "schedule is fair, adversarial or random:SEED", "%v", err)
	}
	if err := validPlatform(&st.Platform); err != nil {
		return st, nil, err
	}
	// 0 means the default: the step kernel's first count, else the
	// engine's; stepDefaults checks the count it fills in.
	if err := validRanks(st.Ranks, false); err != nil {
		return st, nil, err
	}
	if st.Step == 0 {
		if st.Variant != "" || st.Kernel != "" {
			return st, nil, errorf(fiber.StatusBadRequest, "give step with variant or kernel", "variant %q or kernel %q without a step", st.Variant, st.Kernel)
		}
		st.Entry = expandP(st.Entry, st.Ranks)
		return st, nil, nil
	}
	sc, err := stepDefaults(&st)
	return st, sc, err
}

// stepDefaults fills in a step run's variant, ranks and entry from the
// step's kernel of that variant, and says what to check the run against.
func stepDefaults(st *Settings) (*stepCheck, error) {
	s, ok := check.StepOf(st.Step)
	if !ok {
		return nil, errorf(fiber.StatusNotFound, "steps are 1 to 20", "no step %d", st.Step)
	}
	if st.Variant == "" {
		st.Variant = string(check.Solution)
		if len(s.Solution) == 0 {
			st.Variant = string(check.Builtin)
		}
	}
	var names []string
	for _, v := range s.Variants() {
		names = append(names, string(v))
	}
	if !slices.Contains(names, st.Variant) {
		return nil, errorf(fiber.StatusBadRequest, "step "+strconv.Itoa(st.Step)+" has: "+strings.Join(names, ", "),
			"step %d has no variant %q", st.Step, st.Variant)
	}
	// The variant's first kernel, unless the post names another of the
	// variant's kernels (step 20 has two solutions and three bugs).
	of := s.Kernels(check.Variant(st.Variant))
	name := of[0]
	if st.Kernel != "" {
		if !slices.Contains(of, st.Kernel) {
			return nil, errorf(fiber.StatusBadRequest, fmt.Sprintf("step %d's %s kernels: %s", st.Step, st.Variant, strings.Join(of, ", ")),
				"kernel %q is not one of step %d's %s kernels", st.Kernel, st.Step, st.Variant)
		}
		name = st.Kernel
	}
	k, _ := kernels.Get(name)
	golden := k
	if k.IsStarter() {
		// a starter has no golden of its own: it is judged against the
		// step's reference kernel, whose entries it repeats
		if ref, ok := s.Reference(); ok {
			golden = ref
		}
	}
	if st.Ranks == 0 {
		st.Ranks = k.Ranks[0]
	}
	if err := validRanks(st.Ranks, true); err != nil {
		return nil, err
	}
	sc := &stepCheck{Kernel: golden.Name, File: k.File}
	if st.Entry == "" {
		st.Entry = k.EntriesAt(st.Ranks)[0]
		sc.Entry = golden.Entries[0]
		return sc, nil
	}
	st.Entry = expandP(st.Entry, st.Ranks)
	for i, e := range golden.EntriesAt(st.Ranks) {
		if sameEntry(e, st.Entry) {
			sc.Entry = golden.Entries[i]
		}
	}
	return sc, nil
}

// sameEntry compares two entry expressions ignoring blanks, so a lesson
// cell's build_x(4,"ring") finds the header's build_x({P}, "ring"). The
// entries name factories, rank counts and mode strings, none of which
// holds a blank that matters.
func sameEntry(a, b string) bool {
	strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
	return strip(a) == strip(b)
}

// validRanks refuses rank counts the emulator will not run.
func validRanks(p int, required bool) error {
	if p < 1 && required || p < 0 || p > limits.MaxRanks {
		return errorf(fiber.StatusBadRequest, fmt.Sprintf("ranks is 1 to %d (the server's cap)", limits.MaxRanks),
			"ranks %d out of range: want 1..%d", p, limits.MaxRanks)
	}
	return nil
}

// validPlatform fills in the default platform and refuses unknown ones.
func validPlatform(p *string) error {
	if *p == "" {
		*p = platform.Default()
	}
	names := platform.Names()
	if _, ok := platform.Lookup(*p); !ok {
		return errorf(fiber.StatusBadRequest, "platform is one of "+strings.Join(names, ", "),
			"platform %q unknown: want %s", *p, strings.Join(names, " or "))
	}
	return nil
}

// expandP replaces {P} in an entry with the rank count (engine's default
// when 0), as the command line does.
func expandP(entry string, ranks int) string {
	if ranks == 0 {
		ranks = limits.DefaultRanks
	}
	return strings.ReplaceAll(entry, "{P}", strconv.Itoa(ranks))
}

// runID is the content hash of a run: URL-safe base64 of SHA-256 over the
// code and the normalized settings, the first 16 characters (96 bits).
func runID(code string, st Settings) string {
	id, _ := runIDSum(code, st, nil)
	return id
}

// runIDSum is runID and the SHA-256 of code alone, from one pass over
// the text: the store keys the code by that sum (codeHash) and the
// program cache by it with the file's name (programKey), and hashing the
// text three times was three passes over most of a run message. A text
// with its entry known (the request's, codeTexts) is not hashed again:
// its saved state goes on with the settings.
func runIDSum(code string, st Settings, known *codeText) (id string, sum [sha256.Size]byte) {
	b, _ := json.Marshal(st) // plain fields: cannot fail
	var h hash.Hash
	if e := known; e != nil && e.code == code {
		if c, err := e.afterSum.(hash.Cloner).Clone(); err == nil {
			h, sum = c, e.sum
		}
	}
	if h == nil {
		h = sha256.New()
		h.Write([]byte(code))
		c, err := h.(hash.Cloner).Clone()
		if err != nil {
			sum = sha256.Sum256([]byte(code))
		} else {
			c.Sum(sum[:0])
		}
	}
	h.Write([]byte{0})
	h.Write(b)
	var full [sha256.Size]byte
	return base64.RawURLEncoding.EncodeToString(h.Sum(full[:0]))[:16], sum
}
