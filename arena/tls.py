"""TLS for the arena's gRPC connections, from PEM files.

Every server (referee, API, a Python bot) can serve TLS given a certificate and its key;
every client (the CLI, workers, the referee calling bots) verifies servers against a CA
bundle given as a file. A referee given a client CA as well requires mutual TLS: every
caller must present a certificate that CA signed, and needs no token then
(``arena.access``). Without files, connections are plaintext, as on a laptop.
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
    """A server's certificate chain and private key (PEM), and the CAs whose client
    certificates it requires, if it requires any."""

    certificate: bytes
    key: bytes
    client_ca: bytes | None = None

    @classmethod
    def load(
        cls, certificate: str | Path, key: str | Path, client_ca: str | Path | None = None
    ) -> ServerTls:
        return cls(
            _read(certificate, "TLS certificate"),
            _read(key, "TLS key"),
            _read(client_ca, "client CA bundle") if client_ca else None,
        )

    @property
    def mutual(self) -> bool:
        return self.client_ca is not None

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.key, self.certificate)],
            root_certificates=self.client_ca,
            require_client_auth=self.mutual,
        )


def server_tls(
    certificate: str | None, key: str | None, client_ca: str | None = None
) -> ServerTls | None:
    """The TLS of a server from its flags: the certificate and key go together, and a
    client CA needs them."""
    if bool(certificate) != bool(key):
        raise ValueError("give both --tls-cert and --tls-key, or neither")
    if client_ca and not certificate:
        raise ValueError("--tls-client-ca needs --tls-cert and --tls-key: mutual TLS is TLS")
    return ServerTls.load(certificate, key, client_ca) if certificate and key else None


def channel_credentials(
    ca_file: str | Path, certificate: str | Path | None = None, key: str | Path | None = None
) -> grpc.ChannelCredentials:
    """Credentials that trust the servers whose certificates ``ca_file`` signed, and
    present ``certificate`` (with its ``key``) to a server that requires one."""
    if bool(certificate) != bool(key):
        raise ValueError("give both the client certificate and its key, or neither")
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca_file, "CA bundle"),
        private_key=_read(key, "TLS key") if key else None,
        certificate_chain=_read(certificate, "TLS certificate") if certificate else None,
    )


def bind(server: grpc.aio.Server, address: str, tls: ServerTls | None) -> int:
    """Listen on ``address``, with TLS if given; returns the port (0 if it failed)."""
    if tls is None:
        return server.add_insecure_port(address)
    return server.add_secure_port(address, tls.credentials())
