"""TLS for the arena's gRPC connections, from PEM files.

Every server (referee, API, a Python bot) can serve TLS given a certificate and its key;
every client (the CLI, workers, the referee calling bots) verifies servers against a CA
bundle given as a file. Without files, connections are plaintext, as on a laptop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc


def _read(path: str | Path, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise OSError(f"cannot read the {what} {path}: {error.strerror or error}") from None


@dataclass(frozen=True)
class ServerTls:
    """A server's certificate chain and private key (PEM)."""

    certificate: bytes
    key: bytes

    @classmethod
    def load(cls, certificate: str | Path, key: str | Path) -> ServerTls:
        return cls(_read(certificate, "TLS certificate"), _read(key, "TLS key"))

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.key, self.certificate)])


def server_tls(certificate: str | None, key: str | None) -> ServerTls | None:
    """The TLS of a server from its two flags, which go together."""
    if bool(certificate) != bool(key):
        raise ValueError("give both --tls-cert and --tls-key, or neither")
    return ServerTls.load(certificate, key) if certificate and key else None


def channel_credentials(ca_file: str | Path) -> grpc.ChannelCredentials:
    """Credentials that trust the servers whose certificates ``ca_file`` signed."""
    return grpc.ssl_channel_credentials(root_certificates=_read(ca_file, "CA bundle"))


def bind(server: grpc.aio.Server, address: str, tls: ServerTls | None) -> int:
    """Listen on ``address``, with TLS if given; returns the port (0 if it failed)."""
    if tls is None:
        return server.add_insecure_port(address)
    return server.add_secure_port(address, tls.credentials())
