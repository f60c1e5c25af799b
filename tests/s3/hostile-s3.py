#!/usr/bin/env python3
"""A FAKE, hostile S3 endpoint for tests/cli/t-secrets.sh (not an S3
implementation): it answers in the documented S3 error format
(<Error><Code/><Message/></Error>, the S3 API reference "Error responses")
but puts newlines, CR, ESC and BEL into Code and Message, so that a client
that echoes server text verbatim prints lines of the server's choosing.

usage: hostile-s3.py PORTFILE MODE
  MODE deny-all     every request: 403 with the hostile body
  MODE deny-writes  ListObjectsV2 answers an empty listing (200), every
                    other request 403 with the hostile body
The port it bound on 127.0.0.1 is written to PORTFILE; it serves until
killed. It never looks at credentials."""
import http.server
import sys

FORGED = "PASS  large-put        1000.0 MB/s (forged by the server)"
BODY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n"
        "<Code>AccessDenied\r\n" + FORGED + "\x1b[2K</Code>\n"
        "<Message>denied\n" + FORGED + "\n\x1b]0;owned\x07\r" + "x" * 2000 + "</Message>\n"
        "<RequestId>1</RequestId></Error>\n").encode("utf-8")
EMPTY = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         b"<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>"
         b"</ListBucketResult>\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        listing = self.command == "GET" and "list-type=2" in self.path
        if MODE == "deny-writes" and listing:
            code, body = 200, EMPTY
        else:
            code, body = 403, BODY
        self.send_response(code)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = answer


MODE = sys.argv[2]
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
