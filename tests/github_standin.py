"""A loopback stand-in for the few GitHub REST endpoints `oms result publish` reaches through the
real `gh` (ADR 0040): the tests never talk to the real service.

The real `gh` 2.23 is pointed at it as at a GitHub Enterprise host: `GH_HOST=127.0.0.1:<port>`
(a port is accepted there, not in `--hostname`), `GH_ENTERPRISE_TOKEN` for its token, and HTTPS
with a self-signed certificate for 127.0.0.1 that Go trusts through `SSL_CERT_FILE`. gh then calls
`https://127.0.0.1:<port>/api/v3/...`, its request bodies chunked.

It serves `GET /repos/O/R/pulls?head=O:BRANCH&state=open`, `POST /repos/O/R/pulls`, `PATCH
/repos/O/R/pulls/N` and `POST /repos/O/R/issues/N/labels` (added once each, as GitHub adds them),
keeps the pull requests it made, answers
`GET /repos/O/R/commits/SHA/check-runs`
, `GET /repos/O/R/pulls/N/comments` and `GET /repos/O/R/pulls/N/reviews` from what a test put in
`check_runs`, `review_comments` and `reviews` (a page at a time, as GitHub does: 30 unless
`per_page` asks up to 100), and records every
request (method, path, headers, parsed JSON body) in `requests`.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def _page(url: urllib.parse.SplitResult, items: list[Any]) -> list[Any]:
    """One page of a listing, as GitHub answers it: `per_page` (30 unless asked, at most 100)
    from `page` (1 unless asked)."""
    query = urllib.parse.parse_qs(url.query)
    per_page = min(100, int(query.get("per_page", ["30"])[0]))
    page = int(query.get("page", ["1"])[0])
    return items[(page - 1) * per_page : page * per_page]


@dataclass
class Heard:
    """One request as the stand-in received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class GitHubStandIn:
    """The server, its certificate, what it heard and the pull requests it keeps."""

    folder: Path
    requests: list[Heard] = field(default_factory=list)
    pulls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    check_runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # by commit
    review_comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # by number
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # by number
    fail_creates: int = 0  # this many pull requests are made, then answered 502 (a half-way fault)
    port: int = 0
    _server: ThreadingHTTPServer | None = None

    @property
    def cert(self) -> Path:
        return self.folder / "cert.pem"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def env(self, token: str = "standin-token") -> dict[str, str]:  # noqa: S107 - a test's
        """What `gh` needs to talk to the stand-in (and never to github.com)."""
        return {
            "GH_HOST": self.host,
            "GH_ENTERPRISE_TOKEN": token,
            "SSL_CERT_FILE": str(self.cert),
            "GH_CONFIG_DIR": str(self.folder / "gh-config"),
        }

    def start(self) -> GitHubStandIn:
        key = self.folder / "key.pem"
        subprocess.run(
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-keyout", str(key), "-out", str(self.cert), "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    out = b""
                    while True:
                        size = int(self.rfile.readline().strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            return out
                        out += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _answer(self, status: int, doc: object) -> None:
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _serve(self) -> None:
                raw = self._body()
                body: dict[str, Any] = json.loads(raw) if raw else {}
                standin.requests.append(
                    Heard(self.command, self.path, dict(self.headers.items()), body)
                )
                url = urllib.parse.urlsplit(self.path)
                parts = url.path.removeprefix("/api/v3/").split("/")
                if len(parts) == 6 and parts[3] == "commits" and parts[5] == "check-runs":
                    runs = standin.check_runs.get(parts[4], [])
                    self._answer(200, {"total_count": len(runs), "check_runs": _page(url, runs)})
                    return
                if len(parts) == 6 and parts[3] == "pulls" and parts[5] == "comments":
                    self._answer(200, _page(url, standin.review_comments.get(int(parts[4]), [])))
                    return
                if len(parts) == 6 and parts[3] == "pulls" and parts[5] == "reviews":
                    self._answer(200, _page(url, standin.reviews.get(int(parts[4]), [])))
                    return
                if len(parts) == 6 and parts[3] == "issues" and parts[5] == "labels":
                    pr = standin.pulls[f"{parts[1]}/{parts[2]}"][int(parts[4]) - 1]
                    have = [label["name"] for label in pr.setdefault("labels", [])]
                    have += [name for name in body["labels"] if name not in have]
                    pr["labels"] = [{"name": name} for name in have]
                    self._answer(200, pr["labels"])
                    return
                if len(parts) < 4 or parts[0] != "repos" or parts[3] != "pulls":
                    self._answer(404, {"message": "Not Found"})
                    return
                repo = f"{parts[1]}/{parts[2]}"
                pulls = standin.pulls.setdefault(repo, [])
                if self.command == "GET" and len(parts) == 4:
                    query = urllib.parse.parse_qs(url.query)
                    head = query.get("head", [""])[0].split(":", 1)[-1]
                    self._answer(
                        200, [p for p in pulls if p["head"] == head and p["state"] == "open"]
                    )
                elif self.command == "POST" and len(parts) == 4:
                    number = len(pulls) + 1
                    pr = {
                        "number": number,
                        "state": "open",
                        "html_url": f"https://{standin.host}/{repo}/pull/{number}",
                        **body,
                    }
                    pulls.append(pr)
                    if standin.fail_creates > 0:  # made, but gh hears a failure
                        standin.fail_creates -= 1
                        self._answer(502, {"message": "Bad Gateway"})
                        return
                    self._answer(201, pr)
                elif self.command == "PATCH" and len(parts) == 5:
                    pr = pulls[int(parts[4]) - 1]
                    pr.update(body)
                    self._answer(200, pr)
                else:
                    self._answer(404, {"message": "Not Found"})

            do_GET = do_POST = do_PATCH = _serve  # noqa: N815 - http.server's names

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(self.cert), str(key))
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self.port = server.server_address[1]
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
