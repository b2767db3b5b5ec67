"""Redirects may not lead the clipper into the user's own network.

A public page that answers ``302 Location: http://169.254.169.254/latest/meta-data/`` (a cloud
metadata service), ``http://192.168.1.1/`` (a router) or ``http://localhost:8080/admin`` would
otherwise have pms-tui fetch it and save the answer as a note. A redirect target whose address
is private, loopback, link-local, reserved or multicast is refused, unless it is the very host
the user typed (clipping ``http://localhost:8000/post`` and its own redirects stays possible).
Two checks: the name is resolved just before httpx connects (``redirect_guard``, a request
hook), and once connected, the address the socket really reached is checked again
(``peer_guard``, a response hook, before any of the body is read): a DNS answer that changes
between the two lookups (rebinding) is caught by the second.
"""

from __future__ import annotations

import ipaddress
import socket

import httpx

from ..errors import ClipError


def _addresses(host: str, port: int | None) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    literal = host.strip("[]")
    try:
        return [ipaddress.ip_address(literal)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(literal, port or 80, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []  # the connection will fail with its own sentence
    found = []
    for info in infos:
        try:
            found.append(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
        except ValueError:
            continue
    return found


def is_internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


def redirect_guard(typed_url: str):
    """An httpx ``request`` event hook refusing redirects into internal addresses."""
    typed_host = (httpx.URL(typed_url).host or "").lower()

    def check(request: httpx.Request) -> None:
        host = (request.url.host or "").lower()
        if host == typed_host:
            return
        for address in _addresses(host, request.url.port):
            if is_internal(address):
                raise ClipError(
                    f"{typed_url} redirects to {request.url.host} ({address}), a private, loopback or "
                    f"link-local address; clip that address directly if you mean it."
                )

    return check


def peer_guard(typed_url: str):
    """An httpx ``response`` event hook: refuse an answer from an internal address reached by
    a redirect, by the address the connection really reached (not by a second DNS lookup)."""
    typed_host = (httpx.URL(typed_url).host or "").lower()

    def check(response: httpx.Response) -> None:
        url = response.request.url
        if (url.host or "").lower() == typed_host:
            return
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer:
            return  # no socket to ask (a mocked transport): the request hook's check stands
        try:
            address = ipaddress.ip_address(str(peer[0]).split("%", 1)[0])
        except ValueError:
            return
        if is_internal(address):
            raise ClipError(
                f"{typed_url} redirects to {url.host}, which answered from {address}, a private, "
                f"loopback or link-local address; clip that address directly if you mean it."
            )

    return check
