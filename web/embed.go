// Package web holds the workbench's front end: the sources under src/, built
// by npm (esbuild) into dist/, which is committed and embedded here so that
// `go run ./cmd/workbench` serves the page without node. CI rebuilds dist/
// and fails when it differs from the committed one.
package web

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Assets returns the built page: index.html at its root, the bundle under
// assets/.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time; Sub cannot fail on it
	}
	return sub
}
