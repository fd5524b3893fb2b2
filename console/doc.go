// Package console is the web application of frameindex, served by the same
// binary under /console/: people sign in, manage their organisation's
// members, mint and revoke API keys in the Developers area, follow their
// usage and credits, and offer and license datasets in the Marketplace. The API (/v1) is for programs with keys; this
// is for people with passwords, and neither credential opens the other.
//
// Every page, stylesheet and script is embedded (go:embed): nothing is
// fetched from another host, so it works on an air-gapped network. There
// is no build step; charts are SVG drawn on the server, and the one small
// script of the other pages only adds copy buttons.
//
// Explore (explore.go) is a map: MapLibre GL JS, vendored under
// assets/vendor/maplibre-gl by scripts/vendor-maplibre.sh (its CSP build,
// whose worker is a same-origin file), with no basemap. It draws the
// country outline (Config.Outline), state and LGA boundary lines, frames
// from zoom 11 and a choropleth of any readable numeric attribute, all as
// vector tiles: frames and choropleth from the API's own (OGC API -
// Tiles), the outline and boundary lines from the console's line tiles
// (explore_lines.go: lines derived once from the dataset that records
// state and lga, cut per tile by package mvt; not API calls). The
// map's other calls (tiles, point, box, data, question) are API calls:
// the console hands each to the API's handlers (Behalf, which
// *handlers.Server implements as ServeAs) with a key of the person's
// organisation named "console: <login>", minted through admin.Ops when
// they open Explore and hold no active one (audited, listed under
// Developers, revocable; its secret is dropped). So they are metered,
// limited, charged and logged exactly as API calls; only the reading of a
// secret is skipped. Place search, boundary lines and colour steps are
// read from the store (see explore_index.go) and kept in memory per
// dataset version.
//
// Every change goes through the methods of admin.Ops, the very operations
// the command line runs (one code path), under the signed-in person's name, so the
// audit log records who did what, when and from where. Reads of sessions,
// last key uses and readable datasets go to the store directly.
//
// Security:
//   - Passwords are argon2id hashes (bolt); a person added or reset gets a
//     one-time password that must be changed at first sign-in.
//   - Sessions: a random token in an HttpOnly, SameSite=Strict cookie
//     limited to /console/ (Secure over TLS, or with
//     Config.SecureCookies); the file holds its SHA-256 digest. Idle and
//     absolute expiry (30 minutes, 12 hours by default); sign-out deletes
//     the session; a password change or reset ends every session of the
//     person.
//   - CSRF: every change carries the session's token in a form field (the
//     sign-in form a double-submitted cookie token), and a browser's
//     Origin and Sec-Fetch-Site must name this server. The Explore map's
//     GETs, which may spend credits, need proof too (Sec-Fetch-Site
//     same-origin or none, else the token in X-CSRF-Token), and its key
//     is minted only by a POST.
//   - Failed sign-ins are throttled per person (whatever login they type)
//     and per client address (the peer address, IPv6 by its /64:
//     forwarded-for headers are not believed). An attempt is counted
//     before its password is checked, in one step with the check, and
//     password hashes run at most two at a time behind a short queue
//     (429 past it), so a burst neither beats the throttle nor the memory.
//   - Roles are checked by each handler of a change, whatever the page
//     showed; every lookup is scoped to the session's organisation, so a
//     key or a member of another organisation is "not found".
//   - A request with an Authorization header is refused: an API key never
//     opens the web application, and the session cookie never reaches /v1
//     (its path is /console/, and the API reads keys only).
//   - Pages are sent with a strict Content-Security-Policy (scripts and
//     styles from this server only), no-store caching and no framing.
//
// Caveats:
//   - The last use of a key is kept in memory and written every
//     Config.FlushEvery and at Close: a crash loses at most that much.
//   - Throttling state is in memory: a restart forgets it.
//   - Behind a TLS-terminating proxy, set Config.SecureCookies; the client
//     address is then the proxy's, so per-address throttling applies to
//     everyone behind it.
//   - The Explore map spends the organisation's API budget: each tile is
//     a metered request (the key's limit, 60 a minute with a burst of 120
//     by default), so a fast tour of the country can hit 429 and leave
//     tiles blank for a while (the page says so). Tiles are kept by the
//     browser for 5 minutes and deeper zooms reuse zoom 9's.
//   - Place search, boundaries and colour steps scan whole datasets (about
//     a second for a national one) on first use after each import; they
//     read only datasets the organisation reads, places and boundaries
//     only those it reads without charge.
//   - A person who belongs to several organisations has one password for
//     all of them: an admin of one may not reset it (an operator can), and
//     new members are always new people (an operator adds an existing
//     person to another organisation with `frameindex user add`).
package console
