package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The gate keeps the workbench to the learner's own pages. The server runs
// on the learner's laptop and executes programs, so any web page they visit
// could otherwise drive it: a no-cors `text/plain` POST starts a run, a
// foreign page opens a websocket (browsers do not apply the same-origin rule
// to upgrades), and DNS rebinding points a foreign name at 127.0.0.1. Each
// request passes four checks, in this order (API.md, "Who may call"):
//
//  1. Token: when the server is bound to a non-loopback address it requires
//     the token it printed at start (as Jupyter does): `?token=` on any URL
//     (which sets an HttpOnly SameSite=Strict cookie for the rest of the
//     session), the cookie, or `Authorization: token T`.
//  2. Host: without a token the Host header must name a loopback host
//     (localhost, *.localhost, 127.0.0.0/8, ::1), which defeats DNS
//     rebinding: the rebound page's requests carry its own name.
//  3. Origin: a POST or a websocket upgrade whose Origin is present must be
//     the server's own (scheme://Host); `Sec-Fetch-Site: cross-site` is
//     refused too. Clients that send neither (curl, scripts) pass.
//  4. Content type: every POST says `Content-Type: application/json`, which
//     a cross-origin page cannot send without a CORS preflight the server
//     never grants.
//
// Every response carries a Content-Security-Policy that allows only the
// server's own scripts, styles and connections, frame-ancestors 'none', and
// X-Content-Type-Options: nosniff.

// tokenCookie is the cookie that carries the access token after `?token=`.
const tokenCookie = "pld_token"

// contentSecurityPolicy admits the server's own bundle and nothing else.
// 'self' in connect-src covers the same-origin websocket; img-src allows
// data: and blob: for the favicon and the canvas exports.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pagePolicy is the policy of the page itself: the same, with the page's
// nonce admitting the <style> elements the bundle generates.
func pagePolicy(nonce string) string {
	return strings.Replace(contentSecurityPolicy, "style-src 'self'", "style-src 'self' 'nonce-"+nonce+"'", 1)
}

// newNonce makes a page's 128-bit CSP nonce.
func newNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return base64.StdEncoding.EncodeToString(b)
}

// gate is the first middleware: it refuses what a foreign page could send
// and sets the security headers on everything else.
func (s *Server) gate(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")

	if s.opts.Token != "" {
		if err := s.checkToken(c); err != nil {
			return err
		}
	} else if !loopbackHost(c.Hostname()) {
		return errorf(fiber.StatusForbidden,
			"open the workbench at http://127.0.0.1:PORT/ or http://localhost:PORT/; to serve other machines bind a non-loopback --addr, which requires the printed token",
			"host %q is not this server's: without a token the workbench answers only loopback names", c.Hostname())
	}

	upgrade := strings.EqualFold(c.Get(fiber.HeaderUpgrade), "websocket")
	if c.Method() == fiber.MethodPost || upgrade {
		if origin := c.Get(fiber.HeaderOrigin); origin != "" && !s.sameOrigin(c, origin) {
			return errorf(fiber.StatusForbidden, "the workbench answers only its own pages",
				"origin %q is not this server's (%s://%s)", origin, c.Protocol(), c.Hostname())
		}
		if c.Get("Sec-Fetch-Site") == "cross-site" {
			return errorf(fiber.StatusForbidden, "the workbench answers only its own pages", "a cross-site request is refused")
		}
	}
	if c.Method() == fiber.MethodPost {
		ct := strings.ToLower(strings.TrimSpace(strings.SplitN(c.Get(fiber.HeaderContentType), ";", 2)[0]))
		if ct != fiber.MIMEApplicationJSON {
			return errorf(fiber.StatusUnsupportedMediaType, `send the body as JSON with "Content-Type: application/json"`,
				"content type %q is refused: every POST is application/json", c.Get(fiber.HeaderContentType))
		}
	}
	return c.Next()
}

// checkToken admits a request that carries the server's token, and turns a
// `?token=` into a cookie so links within the page need not carry it.
func (s *Server) checkToken(c *fiber.Ctx) error {
	want := []byte(s.opts.Token)
	if q := c.Query("token"); q != "" && subtle.ConstantTimeCompare([]byte(q), want) == 1 {
		c.Cookie(&fiber.Cookie{Name: tokenCookie, Value: s.opts.Token, Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode})
		return nil
	}
	if v := c.Cookies(tokenCookie); v != "" && subtle.ConstantTimeCompare([]byte(v), want) == 1 {
		return nil
	}
	if a, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "token "); ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(a)), want) == 1 {
		return nil
	}
	return errorf(fiber.StatusUnauthorized, "open the URL the server printed at start; it carries ?token=",
		"this workbench is served beyond loopback and needs its token")
}

// sameOrigin reports whether origin is this server as the request reached
// it: the same scheme and host:port.
func (s *Server) sameOrigin(c *fiber.Ctx, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Scheme, c.Protocol()) && strings.EqualFold(u.Host, string(c.Request().Host()))
}

// loopbackHost reports whether a Host header's name (without the port)
// names this machine's loopback interface.
func loopbackHost(host string) bool {
	host = strings.ToLower(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
