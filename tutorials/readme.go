package tutorials

import (
	"embed"
	"fmt"
)

// The pages beside the lessons: the README (the format of a lesson file),
// step 0 (intro.md), the operation reference (reference.md, generated from
// the checker's table) and the glossary.
//
//go:embed README.md intro.md reference.md glossary.md
var docFiles embed.FS

// Docs maps a page name, as in /lessons/NAME, to its file.
var Docs = map[string]string{"README": "README.md", "intro": "intro.md", "reference": "reference.md", "glossary": "glossary.md"}

// DocSource returns the Markdown of page name.
func DocSource(name string) (string, error) {
	f, ok := Docs[name]
	if !ok {
		return "", fmt.Errorf("no page %q", name)
	}
	b, err := docFiles.ReadFile(f)
	return string(b), err
}

// DocHTML renders page name as the lessons are rendered.
func DocHTML(name string) (string, error) {
	src, err := DocSource(name)
	if err != nil {
		return "", err
	}
	return renderLesson(src)
}

// ReadmeHTML renders the lessons' README (the format of a lesson file).
func ReadmeHTML() (string, error) { return DocHTML("README") }
