#!/usr/bin/env python3
"""An http: scorer (probity-score/1 over POST, docs/external-scorers.md) computing sentence chrF
with probity's own chrf through its Python module, for the equivalence tests. Listens on
127.0.0.1 on a free port and prints `port N` on its first line of output.
Usage: chrf_http_server.py  (PYTHONPATH=build/python)"""
import http.server
import json

import probity


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        items = body["items"]
        scores = probity.score("chrf", [i["candidate"] for i in items],
                               [i["references"] for i in items]) if items else []
        answer = json.dumps({"scores": [float(s) for s in scores]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
