package tutorials

import _ "embed"

//go:embed README.md
var readme string

// ReadmeHTML renders the lessons' README (the format of a lesson file),
// which steps 1 and 17 link to, as the lessons are rendered.
func ReadmeHTML() (string, error) { return renderLesson(readme) }
