"""The webhook transport (effects/webhook.py) against real sockets on 127.0.0.1: deadlines that bound a whole attempt
and a whole delivery (a receiver answering one byte at a time), the addresses a deployed function refuses after
resolving the name and at connect time (DNS rebinding), and a certificate failure that is never retried."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
import time

import pytest

from rule_actions.effects import webhook
from rule_actions.effects.webhook import WebhookFailed, Webhooks, refusal
from rule_actions.kinds.webhook import Webhook
from rule_actions_cli.receiver import Receiver, Reply

KEY, PATH = "transport-test-key", "/hooks/x"
HOOK = Webhook("ml-alerts", "rule-actions/ml-alerts", "json")


def hooks(**options) -> Webhooks:
    return Webhooks(lambda: None, **{"loopback_http": True, **options})


def post(hooks: Webhooks, url: str) -> tuple[float, Exception | tuple[int, int]]:
    started = time.monotonic()
    try:
        answer: Exception | tuple[int, int] = hooks.post(HOOK, url, b"{}", {})
    except WebhookFailed as err:
        answer = err
    return time.monotonic() - started, answer


# --- deadlines ------------------------------------------------------------------------------------------------


def test_a_receiver_answering_one_byte_at_a_time_fails_within_the_delivery_budget():
    # Given a receiver that answers 200, one byte every 0.1 s (its whole answer takes about 6 s), and a delivery
    # allowed 0.5 s per attempt and 1.2 s in all (the defaults, 5 s and 15 s, scaled down)
    with Receiver({PATH: KEY}) as slow:
        slow.replies.extend([Reply(trickle=0.1)] * 4)
        elapsed, answer = post(hooks(timeout=0.5, budget=1.2, backoff=0.05), slow.url(PATH))

    # Then each attempt ends at its deadline, not at its last byte, and the delivery fails within its budget
    assert isinstance(answer, WebhookFailed), answer
    assert str(answer).startswith("webhook ml-alerts: no answer within 0.")
    assert elapsed < 1.6
    assert len(slow.received) >= 2  # retried within the budget


def test_an_attempt_never_outlives_the_delivery_budget():
    # Given a budget shorter than one attempt's timeout
    with Receiver({PATH: KEY}) as slow:
        slow.replies.extend([Reply(delay=2.0)])
        elapsed, answer = post(hooks(timeout=5.0, budget=0.4), slow.url(PATH))
    # Then the one attempt gets what the budget leaves
    assert isinstance(answer, WebhookFailed) and "no answer within 0.4 s" in str(answer)
    assert elapsed < 0.9


# --- addresses ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("address", "kind"), [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("169.254.169.254", "link-local"), ("fe80::1%2", "link-local"),
    ("10.0.0.7", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fd00::1", "private"),
    ("100.64.0.1", "non-public"), ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("224.0.0.1", "multicast"),
    ("ff02::1", "multicast"), ("240.0.0.1", "reserved"), ("::ffff:169.254.169.254", "link-local"),
    ("64:ff9b::a9fe:a9fe", "link-local"), ("2002:7f00:1::1", "loopback"), ("192.0.2.1", "private"),
])
def test_addresses_a_deployed_function_refuses(address, kind):
    assert refusal(address) == kind


@pytest.mark.parametrize("address", ["8.8.8.8", "52.94.236.248", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address):
    assert refusal(address) is None


@pytest.fixture
def connects(monkeypatch):
    """Every address the transport connects to; each connection is refused (nothing listens)."""
    seen = []

    def connect(sock, address):
        seen.append(address[0])
        raise ConnectionRefusedError

    monkeypatch.setattr(webhook, "_connect", connect)
    return seen


def test_deployed_the_instance_metadata_address_is_refused_at_once_and_never_contacted(connects):
    elapsed, answer = post(hooks(loopback_http=False), "https://169.254.169.254/latest/meta-data/")
    assert isinstance(answer, WebhookFailed)
    assert str(answer) == ("webhook ml-alerts: its host resolves only to link-local addresses, which a deployed "
                           "function never contacts (only public addresses are): not retried")
    assert connects == [] and elapsed < 0.5


def test_deployed_a_name_that_resolves_to_a_private_address_is_refused_after_resolution(monkeypatch, connects):
    # Given a public-looking name whose DNS answer is a private address
    monkeypatch.setattr(webhook.socket, "getaddrinfo", lambda host, port, **_: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port))])
    _, answer = post(hooks(loopback_http=False), "https://hooks.example.com/x")
    assert isinstance(answer, WebhookFailed) and "resolves only to private addresses" in str(answer)
    assert connects == []


def test_deployed_dns_rebinding_between_attempts_cannot_reach_a_private_address(monkeypatch, connects):
    # Given a name that answers a public address first (whose connection fails, so the delivery retries), then the
    # instance metadata address
    answers = iter(["52.94.236.248", "169.254.169.254"])
    monkeypatch.setattr(webhook.socket, "getaddrinfo", lambda host, port, **_: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))])
    _, answer = post(hooks(loopback_http=False, backoff=0.01), "https://hooks.example.com/x")
    # Then the connection goes to the address that was checked, and the rebound answer is refused without contact
    assert connects == ["52.94.236.248"]
    assert isinstance(answer, WebhookFailed) and "resolves only to link-local addresses" in str(answer)


def test_deployed_only_the_public_addresses_of_a_mixed_answer_are_contacted(monkeypatch, connects):
    monkeypatch.setattr(webhook.socket, "getaddrinfo", lambda host, port, **_: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("52.94.236.248", port))])
    post(hooks(loopback_http=False, attempts=1), "https://hooks.example.com/x")
    assert connects == ["52.94.236.248"]


def test_deployed_loopback_is_refused_even_over_https_with_a_listener_there():
    # Given something listening on 127.0.0.1
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        _, answer = post(hooks(loopback_http=False), f"https://127.0.0.1:{listener.getsockname()[1]}/x")
        # Then nothing connected to it
        with pytest.raises(TimeoutError):
            listener.accept()
    assert isinstance(answer, WebhookFailed) and "loopback" in str(answer)


def test_a_local_replay_still_posts_plain_http_to_loopback():
    from rule_actions.kinds.webhook import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

    now = int(time.time())
    with Receiver({PATH: KEY}) as local:
        answer = hooks().post(HOOK, local.url(PATH), b"{}", {TIMESTAMP_HEADER: str(now),
                                                            SIGNATURE_HEADER: sign(KEY, now, b"{}")})
    assert answer == (200, 1) and [r.valid for r in local.received] == [True]


# --- certificates ---------------------------------------------------------------------------------------------


@pytest.fixture
def self_signed_server(tmp_path):
    """An HTTPS server on 127.0.0.1 with a certificate nobody trusts; counts the connections it accepts."""
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(tmp_path / "key.pem"),
                        "-out", str(tmp_path / "cert.pem")], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("openssl is needed to make a self-signed certificate")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(1)
            try:
                context.wrap_socket(conn, server_side=True).close()
            except (OSError, ssl.SSLError):
                conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}/x", accepted
    listener.close()


@pytest.fixture
def trusted_authority(tmp_path, monkeypatch):
    """A certificate authority the function's context trusts (SSL_CERT_FILE, which its default context loads), and
    HTTPS servers on 127.0.0.1 whose certificates it signs for the names given; each answers 200 to one request."""
    def openssl(*args):
        try:
            subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            pytest.skip("openssl is needed to make certificates")

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=rule-actions test CA",
            "-keyout", tmp_path / "ca.key", "-out", tmp_path / "ca.pem")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    webhook._tls.cache_clear()
    listeners = []

    def server(san: str) -> str:
        name = san.replace(":", "-")
        (tmp_path / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=receiver", "-keyout", tmp_path / f"{name}.key",
                "-out", tmp_path / f"{name}.csr")
        openssl("x509", "-req", "-in", tmp_path / f"{name}.csr", "-CA", tmp_path / "ca.pem", "-CAkey", tmp_path / "ca.key",
                "-CAcreateserial", "-days", "1", "-extfile", tmp_path / f"{name}.ext", "-out", tmp_path / f"{name}.pem")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tmp_path / f"{name}.pem", tmp_path / f"{name}.key")
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)

        def serve():
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                try:
                    with context.wrap_socket(conn, server_side=True) as tls:
                        request = b""
                        while b"\r\n\r\n" not in request:  # the head, then the body it announces
                            request += tls.recv(65536) or b"\r\n\r\n"
                        head, _, body = request.partition(b"\r\n\r\n")
                        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                       if line.lower().startswith(b"content-length:")), 0)
                        while len(body) < length:
                            body += tls.recv(65536) or b" " * length
                        tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except (OSError, ssl.SSLError):
                    conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return f"https://127.0.0.1:{listener.getsockname()[1]}/x"

    yield server
    for listener in listeners:
        listener.close()
    webhook._tls.cache_clear()


def test_a_certificate_of_a_trusted_authority_for_the_receivers_address_delivers(trusted_authority):
    # Given a receiver whose certificate a trusted authority signed for its address (an IP address in the URL)
    url = trusted_authority("IP:127.0.0.1")
    # When a delivery is posted / Then it is delivered, the certificate and the name checked (urllib3 1.26 and 2)
    _, answer = post(hooks(backoff=0.01), url)
    assert answer == (200, 1)


def test_a_trusted_certificate_for_another_name_fails_at_once_without_a_retry(trusted_authority):
    # Given a receiver whose certificate a trusted authority signed, for another name than the URL's
    url = trusted_authority("DNS:other.example")
    # When a delivery is posted / Then it fails at once, saying the certificate does not verify (never the host)
    _, answer = post(hooks(backoff=0.01), url)
    assert isinstance(answer, WebhookFailed)
    assert str(answer) == ("webhook ml-alerts: the receiver's TLS certificate does not verify "
                           "(CertificateError): not retried")


def test_a_certificate_that_does_not_verify_fails_at_once_without_a_retry(self_signed_server):
    url, accepted = self_signed_server
    _, answer = post(hooks(backoff=0.01), url)
    assert isinstance(answer, WebhookFailed)
    assert str(answer) == ("webhook ml-alerts: the receiver's TLS certificate does not verify "
                           "(SSLCertVerificationError): not retried")
    assert accepted == [1]
