// Package e2e holds the workbench's browser tests: they start the real server
// (package server) on 127.0.0.1:0 with a fresh SQLite data directory, drive
// the real page in headless Chromium through the DevTools protocol
// (github.com/chromedp/chromedp), and assert only on the DOM hooks that
// server/API.md lists under "Browser-facing DOM hooks": data-test
// attributes, data-state, data-events and the window.pldWorkbench
// getCode/setCode pair.
//
// The tests wait for DOM conditions, never for fixed times: each wait is a
// JavaScript predicate polled every 100 ms under the test's deadline (90 s,
// generous for a 2-core machine where a cold Chromium takes a few seconds to
// start). An uncaught exception in one of the page's tabs fails the test;
// console errors are logged.
//
// Chromium is found through $CHROME, then /usr/bin/chromium, then chromium
// or chromium-browser in PATH; without one the tests skip. Every test saves
// its screenshots (1280x800 viewport, or one element) to the directory in
// $PLD_SCREENSHOTS when it is set, so that
//
//	PLD_SCREENSHOTS=$PWD/docs/screenshots go test -count=1 ./e2e/
//
// refreshes the committed ones; otherwise they go to a temporary directory.
package e2e
