#!/usr/bin/env python3
"""Loads one HTML page in a real headless Chromium through chromedriver
(W3C WebDriver over HTTP, python3 stdlib only) and writes what a test needs
to assert about it as JSON: the charts of the `cmax report` DOM contract
(docs/report.md) with their axis labels, marks and reference lines, the run
sections, script elements and other ways to run code, console messages,
every network request the page started, every connection that reached the
recording proxy, alert dialogs, and whether given strings are in the text.

    cdriver.py PAGE.html [--facts OUT.json] [--screenshot OUT.png]
               [--text-contains STRING]... [--timeout S]

Exit 0: facts written (whatever the page did; judging them is the test's
job). Exit 2: chromium or chromedriver is not installed (one line saying
which; the caller SKIPs). Exit 1: the harness itself failed (one line).

Why a proxy: the page is opened in a browser context of its own (CDP
Target.createBrowserContext on the browser's DevTools socket) whose proxy
is a listener of this script that records every connection and answers
403, and Chromium runs with --host-resolver-rules mapping every name to
NOTFOUND, so nothing leaves the machine and any attempt of the page,
resolvable or not, http or https, is counted even where the performance log
would miss it (a service worker, a prefetch). The implicit loopback bypass
is removed so that http://127.0.0.1:PORT is counted too. Chromium's own
traffic (component updates, the default search engine's preconnect, account
checks: a fresh headless profile makes some whatever the switches) goes to
the browser-wide --proxy-server, a second listener, and is only reported
(browser_background_requests), never counted as the page's."""
import argparse
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

CHROMIUM = os.environ.get("CMAX_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CMAX_CHROMEDRIVER", "/usr/bin/chromedriver")


class HarnessError(Exception):
    pass


class Timeout(HarnessError):
    pass


class WebDriverError(HarnessError):
    def __init__(self, status, error, message):
        super().__init__("%s: %s" % (error, message.splitlines()[0] if message else ""))
        self.status, self.error, self.message = status, error, message


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class RecordingProxy:
    """Accepts every connection on 127.0.0.1, keeps its first request line
    (GET http://host/..., CONNECT host:443), answers 403 and closes."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            line = b""
            try:
                conn.settimeout(1.0)
                while b"\n" not in line and len(line) < 4096:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    line += chunk
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            finally:
                conn.close()
            with self.lock:
                self.hits.append(line.split(b"\r\n", 1)[0].decode("latin-1")[:300])

    def stop(self):
        self.stopping = True
        self.thread.join(2)
        self.sock.close()


class Cdp:
    """A minimal client of Chromium's browser-level DevTools socket (RFC
    6455 text frames, client-masked): WebDriver's own CDP bridge runs on a
    page and may not create a browser context, which is what the page is
    isolated in (see collect)."""

    def __init__(self, address, timeout):
        host, port = address.rsplit(":", 1)
        if host == "localhost":
            host = "127.0.0.1"
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        try:
            conn.request("GET", "/json/version")
            ws = json.loads(conn.getresponse().read())["webSocketDebuggerUrl"]
        finally:
            conn.close()
        path = "/" + ws.split("/", 3)[3]
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise HarnessError("DevTools socket closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise HarnessError("DevTools refused the WebSocket: %r" % head.split(b"\r\n", 1)[0])
        self.buf = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise HarnessError("DevTools socket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self):
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(self._read(2), "big")
        elif n == 127:
            n = int.from_bytes(self._read(8), "big")
        mask = self._read(4) if b1 & 0x80 else None
        data = self._read(n)
        if mask:
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        return b0 & 0x0F, b0 & 0x80, data

    def call(self, method, params=None):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params or {}}).encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
                                if n < 65536 else bytes([0x80 | 127]) + n.to_bytes(8, "big"))
        self.sock.sendall(head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload)))
        msg = b""
        while True:
            op, fin, data = self._frame()
            if op == 8:
                raise HarnessError("DevTools closed the socket")
            if op == 9:  # ping: a pong is owed, masked like every client frame
                m = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + m + bytes(c ^ m[i % 4] for i, c in enumerate(data)))
                continue
            if op in (0, 1):
                msg += data
                if not fin:
                    continue
                doc, msg = json.loads(msg), b""
                if doc.get("id") != self.next_id:
                    continue  # an event, or an answer to nothing of ours
                if "error" in doc:
                    raise HarnessError("%s: %s" % (method, doc["error"].get("message")))
                return doc.get("result", {})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Driver:
    """One chromedriver process and at most one session of it."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="cdriver-log.", suffix=".txt", delete=False)
        # its own process group, so that chromedriver and the browsers it
        # started are ended together, by this group's id only
        self.proc = subprocess.Popen([CHROMEDRIVER, "--port=%d" % self.port, "--allowed-ips=127.0.0.1"],
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.session = None
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise HarnessError("chromedriver exited %s at start: %s" % (self.proc.returncode, self.log_tail()))
            try:
                if self.call("GET", "/status", timeout=2).get("ready"):
                    break
            except (OSError, HarnessError):
                pass
            if time.monotonic() > deadline:
                raise Timeout("chromedriver not ready after %d s" % timeout)
            time.sleep(0.1)

    def log_tail(self):
        try:
            with open(self.log.name, errors="replace") as f:
                return " | ".join(f.read().strip().splitlines()[-3:])
        except OSError:
            return ""

    def call(self, method, path, body=None, timeout=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout or self.timeout)
        try:
            data = None if body is None else json.dumps(body).encode()
            headers = {"Content-Type": "application/json; charset=utf-8"} if data is not None else {}
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
            except socket.timeout:
                raise Timeout("%s %s: no answer from chromedriver within %s s" % (method, path, timeout or self.timeout))
            try:
                doc = json.loads(raw.decode("utf-8", "replace")) if raw else {}
            except ValueError:
                raise HarnessError("%s %s: not JSON: %r" % (method, path, raw[:200]))
            value = doc.get("value") if isinstance(doc, dict) else None
            if resp.status >= 400 or (isinstance(value, dict) and "error" in value and resp.status != 200):
                v = value if isinstance(value, dict) else {}
                raise WebDriverError(resp.status, v.get("error", "http %d" % resp.status), v.get("message", ""))
            return value
        finally:
            conn.close()

    def s(self, method, path, body=None, timeout=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body, timeout)

    def new_session(self, caps):
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        self.session = value["sessionId"]
        return value

    def quit(self):
        if self.session:
            try:
                self.call("DELETE", "/session/%s" % self.session, timeout=10)
            except (OSError, HarnessError):
                pass
            self.session = None
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 3)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # the browsers of the group may outlive chromedriver by a moment
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                break
            time.sleep(0.05)
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


# Runs in the page: the DOM facts of the report contract. Attribute values
# are returned raw (strings): the test compares them as numbers itself.
FACTS_JS = r"""
const attr = (e, n) => e.hasAttribute(n) ? e.getAttribute(n) : null;
const txt = (e) => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;
const all = (root, sel) => Array.from(root.querySelectorAll(sel));
const box = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
const runs = all(document, 'section.run');
const charts = all(document, 'figure.chart').map(f => {
  const svgs = all(f, 'svg');
  const svg = svgs[0] || null;
  const axis = (which) => {
    const g = svg ? all(svg, 'g.axis.' + which) : [];
    return {groups: g.length,
            labels: g.length ? all(g[0], 'text.axis-label').map(txt) : [],
            ticks: g.length ? all(g[0], 'text.tick').map(txt) : []};
  };
  const ax = axis('x'), ay = axis('y');
  return {
    kind: attr(f, 'data-kind'),
    section: runs.indexOf(f.closest('section.run')),
    svgs: svgs.length,
    svg_role: svg ? attr(svg, 'role') : null,
    title: svg ? txt(Array.from(svg.children).find(c => c.tagName.toLowerCase() === 'title')) : null,
    title_first: svg && svg.firstElementChild ? svg.firstElementChild.tagName.toLowerCase() === 'title' : false,
    axes: {x: ax, y: ay},
    axis_labels: {x: ax.labels.length === 1 ? ax.labels[0] : null, y: ay.labels.length === 1 ? ay.labels[0] : null},
    marks: all(f, '.mark').map(m => ({series: attr(m, 'data-series'), x: attr(m, 'data-x'), y: attr(m, 'data-y'),
                                     start: attr(m, 'data-start'), end: attr(m, 'data-end'),
                                     state: attr(m, 'data-state'), tag: m.tagName.toLowerCase()})),
    refs: all(f, '.ref').map(r => ({y: attr(r, 'data-y'), tag: r.tagName.toLowerCase()})),
    caption: txt(f.querySelector('figcaption')),
    box: box(f),
    svg_box: svg ? box(svg) : null,
  };
});
const sections = runs.map(s => ({
  schema: attr(s, 'data-schema'), source: attr(s, 'data-source'),
  h2: txt(s.querySelector('h2')), charts: all(s, 'figure.chart').length}));
// every element in every namespace: an SVG <script> is no HTML one
const every = Array.from(document.getElementsByTagName('*'));
const handlers = every.filter(e => Array.from(e.attributes).some(a => /^on/i.test(a.name)));
const jsurls = every.filter(e => Array.from(e.attributes).some(a =>
  /^(href|src|xlink:href|action|formaction|data)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)));
const csp = all(document, 'meta[http-equiv]').filter(m => /^content-security-policy$/i.test(m.getAttribute('http-equiv')))
  .map(m => m.getAttribute('content'));
const inner = document.body ? document.body.innerText : '';
const content = document.documentElement ? document.documentElement.textContent : '';
const want = arguments[0] || [];
return {
  url: location.href, title: document.title, ready: document.readyState,
  charts: charts, sections: sections,
  scripts: every.filter(e => e.localName.toLowerCase() === 'script').length,
  event_handlers: handlers.length, javascript_urls: jsurls.length,
  iframes: every.filter(e => /^(iframe|frame|object|embed)$/i.test(e.localName)).length,
  csp: csp,
  text_contains: Object.fromEntries(want.map(w => [w, inner.includes(w)])),
  text_content_contains: Object.fromEntries(want.map(w => [w, content.includes(w)])),
  text_length: inner.length,
  page_width: document.documentElement.scrollWidth,
  page_height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
};
"""


def capabilities(user_data_dir, proxy_port):
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,2000",
            "--user-data-dir=" + user_data_dir,
            "--proxy-server=127.0.0.1:%d" % proxy_port, "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            # Chromium's own traffic (updates, field trials, safe browsing)
            # kept down; what remains goes to the browser-wide proxy above,
            # not the page's (see collect)
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--no-first-run", "--no-default-browser-check",
            "--disable-client-side-phishing-detection", "--disable-domain-reliability",
            "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,"
            "NetworkTimeServiceQuerying",
            "--metrics-recording-only", "--disable-dev-shm-usage", "--mute-audio"]
    return {
        "browserName": "chrome",
        "pageLoadStrategy": "normal",
        # an alert stays open and is read below, not dismissed unseen
        "unhandledPromptBehavior": "ignore",
        "timeouts": {"pageLoad": 20000, "script": 10000, "implicit": 0},
        "goog:chromeOptions": {"binary": CHROMIUM, "args": args,
                               "perfLoggingPrefs": {"enableNetwork": True, "enablePage": False}},
        "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
    }


def read_log(d, kind):
    for path in ("/se/log", "/log"):
        try:
            return d.s("POST", path, {"type": kind}) or []
        except WebDriverError as e:
            if e.error not in ("unknown command", "unknown method", "http 404"):
                raise
    raise HarnessError("chromedriver serves no log endpoint")


def pending_alert(d):
    try:
        return d.s("GET", "/alert/text")
    except WebDriverError as e:
        if e.error == "no such alert":
            return None
        raise


def local_url(url):
    return url.startswith(("file:", "data:", "about:", "chrome:", "devtools:", "blob:file"))


def collect(page, args):
    for path, what in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromedriver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            print("cdriver: %s is not installed (%s missing; apt-get install chromium chromium-driver)" % (what, path),
                  file=sys.stderr)
            sys.exit(2)
    if not os.path.isfile(page):
        raise HarnessError("no such page: %s" % page)
    url = "file://" + os.path.abspath(page)
    # Chromium's own traffic (component updates, the search engine's
    # preconnect, account checks: not all of it can be switched off) goes to
    # the browser-wide proxy, `background`; the page is opened in a browser
    # context of its own whose proxy is `proxy`, so every connection there
    # is the page's
    proxy = RecordingProxy()
    background = RecordingProxy()
    profile = tempfile.mkdtemp(prefix="cdriver-profile.")
    d = None
    facts = {"page": page, "url": url, "alerts": [], "console": [], "requests": [], "proxy_hits": 0,
             "proxy_requests": [], "harness_errors": []}
    try:
        d = Driver(args.timeout)
        caps = d.new_session(capabilities(profile, background.port))["capabilities"]
        address = caps.get("goog:chromeOptions", {}).get("debuggerAddress")
        if not address:
            raise HarnessError("chromedriver names no debuggerAddress: the page cannot be given its own proxy")
        cdp = Cdp(address, args.timeout)
        try:
            ctx = cdp.call("Target.createBrowserContext", {"proxyServer": "http://127.0.0.1:%d" % proxy.port,
                                                             "proxyBypassList": "<-loopback>",
                                                             "disposeOnDetach": False})["browserContextId"]
            target = cdp.call("Target.createTarget", {"url": "about:blank", "browserContextId": ctx})["targetId"]
        finally:
            cdp.close()
        for _ in range(50):
            if target in d.s("GET", "/window/handles"):
                break
            time.sleep(0.1)
        d.s("POST", "/window", {"handle": target})
        try:
            d.s("POST", "/url", {"url": url})
        except WebDriverError as e:
            # a dialog opened while loading; it is read below
            if "alert" not in e.error and "alert" not in e.message:
                raise
        # a dialog opened by the page is a finding: record it, dismiss it
        # (until none is left), then read the page
        for _ in range(20):
            text = pending_alert(d)
            if text is None:
                break
            facts["alerts"].append(text)
            d.s("POST", "/alert/dismiss", {})
        # let late loads (images, fonts, prefetches) start before the logs are read
        time.sleep(args.settle)
        facts.update(d.s("POST", "/execute/sync", {"script": FACTS_JS, "args": [args.text_contains]}))
        for e in read_log(d, "browser"):
            facts["console"].append({"level": e.get("level"), "source": e.get("source"),
                                     "message": e.get("message")})
        for e in read_log(d, "performance"):
            try:
                m = json.loads(e["message"])["message"]
            except (KeyError, ValueError, TypeError):
                continue
            if m.get("method") == "Network.requestWillBeSent":
                u = m.get("params", {}).get("request", {}).get("url", "")
                if not local_url(u):
                    facts["requests"].append(u)
        if args.screenshot:
            # the whole page, not the window: chromedriver's CDP bridge on
            # this page (WebDriver's own screenshot is the viewport)
            try:
                shot = d.s("POST", "/goog/cdp/execute",
                           {"cmd": "Page.captureScreenshot",
                            "params": {"format": "png", "captureBeyondViewport": True}}, timeout=60)["data"]
            except (WebDriverError, KeyError, TypeError) as e:
                facts["harness_errors"].append("full-page screenshot: %s; the window's instead" % e)
                shot = d.s("GET", "/screenshot", timeout=30)
            png = base64.b64decode(shot)
            tmp = args.screenshot + ".tmp"
            with open(tmp, "wb") as f:
                f.write(png)
            os.replace(tmp, args.screenshot)
            facts["screenshot"] = args.screenshot
        # a last look: an alert raised late (a timer) is a finding too
        text = pending_alert(d)
        if text is not None:
            facts["alerts"].append(text)
    finally:
        # the cleanup has timeouts of its own; the alarm must not cut it short
        signal.setitimer(signal.ITIMER_REAL, 0)
        if d is not None:
            d.quit()
        proxy.stop()
        background.stop()
        shutil.rmtree(profile, ignore_errors=True)
    facts["proxy_requests"] = list(proxy.hits)
    facts["proxy_hits"] = len(proxy.hits)
    facts["browser_background_requests"] = list(background.hits)
    facts["console_errors"] = sum(1 for c in facts["console"] if c["level"] in ("SEVERE", "ERROR"))
    return facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page")
    ap.add_argument("--facts", help="write the facts here (else stdout)")
    ap.add_argument("--screenshot", help="write a PNG of the page here")
    ap.add_argument("--text-contains", action="append", default=[], metavar="STRING",
                    help="report whether the page's rendered text has STRING (repeatable)")
    ap.add_argument("--timeout", type=float, default=60, help="the whole run, seconds (default 60)")
    ap.add_argument("--settle", type=float, default=0.5, help="seconds to wait after load (default 0.5)")
    args = ap.parse_args()

    def on_alarm(signum, frame):
        raise Timeout("gave up after %g s" % args.timeout)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, args.timeout)
    try:
        facts = collect(args.page, args)
    except HarnessError as e:
        print("cdriver: %s" % e, file=sys.stderr)
        sys.exit(1)
    except OSError as e:
        print("cdriver: %s" % e, file=sys.stderr)
        sys.exit(1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    out = json.dumps(facts, indent=1, sort_keys=True)
    if args.facts:
        tmp = args.facts + ".tmp"
        with open(tmp, "w") as f:
            f.write(out + "\n")
        os.replace(tmp, args.facts)
    else:
        print(out)


if __name__ == "__main__":
    main()
