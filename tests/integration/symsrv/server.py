#!/usr/bin/env python3
"""A symbol server for the tests, on 127.0.0.1 only, that logs every request path.

usage: server.py MODE PORTFILE LOG [ARG]
  debuginfod DIR   debuginfod's layout: /buildid/<id>/debuginfo and /executable from
                   DIR/<id>/debuginfo and DIR/<id>/executable, 404 otherwise
  notfound         404 for everything (records what a client asks)
  hang             reads the request and never answers
  trickle FILE     answers FILE (200, its length) one byte a second
  slow FILE        answers FILE 2 KiB a second, from where a Range header asks (206)
  file FILE        answers FILE for every path (e.g. a file of another build-id)
  huge             answers 2 GiB (Content-Length), an ELF magic then zeros, streamed
  huge-nolen       the same without Content-Length (the body ends when the connection does)
The port it listens on goes to PORTFILE once it does."""
import http.server
import os
import re
import socketserver
import sys
import time

mode, portfile, logpath = sys.argv[1:4]
arg = sys.argv[4] if len(sys.argv) > 4 else None
log = open(logpath, "a", buffering=1)
HUGE = 2 << 30


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body_header(self, length):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        else:
            self.send_header("Connection", "close")
        self.end_headers()

    def do_GET(self):
        rng = self.headers.get("Range")
        log.write(self.path + (" " + rng if rng else "") + "\n")
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def answer(self):
        if mode == "hang":
            time.sleep(3600)
        elif mode == "debuginfod":
            m = re.fullmatch(r"/buildid/([0-9a-f]+)/(debuginfo|executable)", self.path)
            path = m and os.path.join(arg, m.group(1), m.group(2))
            if path and os.path.isfile(path):
                data = open(path, "rb").read()
                self.send_body_header(len(data))
                self.wfile.write(data)
            else:
                self.send_error(404)
        elif mode == "notfound":
            self.send_error(404)
        elif mode == "file":
            data = open(arg, "rb").read()
            self.send_body_header(len(data))
            self.wfile.write(data)
        elif mode == "trickle":
            data = open(arg, "rb").read()
            self.send_body_header(len(data))
            for b in data:
                self.wfile.write(bytes([b]))
                self.wfile.flush()
                time.sleep(1)
        elif mode == "slow":
            data = open(arg, "rb").read()
            m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
            start = int(m.group(1)) if m else 0
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206 if m else 200)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(len(data) - start))
            if m:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            self.end_headers()
            for i in range(start, len(data), 1024):
                self.wfile.write(data[i:i + 1024])
                self.wfile.flush()
                time.sleep(0.5)
        elif mode in ("huge", "huge-nolen"):
            self.send_body_header(HUGE if mode == "huge" else None)
            chunk = b"\0" * (1 << 20)
            self.wfile.write(b"\x7fELF" + chunk[4:])
            for _ in range(HUGE // len(chunk) - 1):
                self.wfile.write(chunk)
            if mode == "huge-nolen":
                self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
