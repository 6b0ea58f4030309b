#!/usr/bin/env python3
# webhook.py PORT FILE - the alert receiver of tests/fleet/chain.sh: an HTTP server on
# 127.0.0.1:PORT appending each POSTed body (Alertmanager's webhook JSON) as one line to FILE.
import http.server
import sys


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = min(int(self.headers.get("Content-Length", "0")), 1 << 20)
        body = self.rfile.read(n).replace(b"\n", b" ")
        with open(sys.argv[2], "ab") as f:
            f.write(body + b"\n")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
