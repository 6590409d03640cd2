"""Cipher facts the Python-side runners need, and OpenSSL's answer as the reference.

The command backend and the Python runners check every output against OpenSSL's
(``libcrypto``'s EVP interface, loaded with ctypes; single DES and Blowfish through the
legacy provider) for the same key, IV and input, outside the timed region. The key is
00 01 02 ... and the IV f0 f1 f2 ..., as the C kernels use without ``--key``/``--iv``
(ChaCha20: block counter 0, then the nonce f0 f1 ...).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from dataclasses import dataclass
from functools import lru_cache

# family -> (default key bytes, allowed key bytes, block bytes; 0 = stream cipher)
_FAMILIES: dict[str, tuple[int, tuple[int, ...], int]] = {
    "aes-128": (16, (16,), 16),
    "aes-192": (24, (24,), 16),
    "aes-256": (32, (32,), 16),
    "des": (8, (8,), 8),
    "des-ede3": (24, (24,), 8),
    "bf": (16, tuple(range(4, 57)), 8),  # Blowfish: 32 .. 448-bit keys
    "chacha20": (32, (32,), 0),
}
MODES = ("ecb", "cbc", "ofb", "ctr")
LEGACY = ("des", "bf")  # families only OpenSSL's legacy provider has
_NAME_RE = re.compile(r"^(aes-128|aes-192|aes-256|des-ede3|des|bf)-(ecb|cbc|ofb|ctr)$")


@dataclass(frozen=True)
class Cipher:
    """One cipher as the Python runners use it: EVP name, family, mode, lengths."""

    name: str
    family: str
    mode: str  # ecb, cbc, ofb, ctr or stream
    key_bytes: int
    iv_bytes: int
    block: int

    @property
    def padded(self) -> bool:
        """PKCS#7 padding, as OpenSSL applies it by default (ECB and CBC)."""
        return self.mode in ("ecb", "cbc")

    @property
    def legacy(self) -> bool:
        return self.family in LEGACY

    @property
    def key_bits(self) -> int:
        return 8 * self.key_bytes

    @property
    def security_bits(self) -> int:
        """Strength against the best known attack as usually quoted: DES 56 (8 parity
        bits), 3DES with three keys 112 (meet in the middle), else the key length."""
        return {"des": 56, "des-ede3": 112}.get(self.family, self.key_bits)

    def key(self) -> bytes:
        return bytes(range(self.key_bytes))

    def iv(self) -> bytes:
        if self.family == "chacha20":
            # OpenSSL's 16-byte ChaCha20 IV: 32-bit block counter (little endian, 0
            # here, as RFC 8439 users start) then the 96-bit nonce
            return bytes(4) + bytes(0xF0 + i for i in range(12))
        return bytes((0xF0 + i) & 0xFF for i in range(self.iv_bytes))


def cipher(name: str, key_bits: int | None = None) -> Cipher:
    """The cipher of an EVP name (``aes-256-ofb``, ``des-cbc``, ``bf-ecb``, ``chacha20``);
    ``key_bits`` picks a key length where the cipher allows several (Blowfish).
    Raises ValueError with a message naming what is allowed."""
    name = name.lower()
    if name == "chacha20":
        family, mode = "chacha20", "stream"
    else:
        m = _NAME_RE.match(name)
        if not m or (m.group(1) != "aes-128" and m.group(1) not in _FAMILIES):
            raise ValueError(
                f"{name!r} is not a cipher the Python runners know (allowed: "
                "aes-128|192|256, des, des-ede3, bf with -ecb|-cbc|-ofb|-ctr, chacha20)"
            )
        family, mode = m.group(1), m.group(2)
        if mode == "ctr" and family not in ("aes-128", "aes-192", "aes-256"):
            raise ValueError(f"{name!r}: OpenSSL has CTR mode for AES only")
    default, allowed, block = _FAMILIES[family]
    nbytes = default
    if key_bits is not None:
        if key_bits % 8 or key_bits // 8 not in allowed:
            lo, hi = 8 * allowed[0], 8 * allowed[-1]
            what = f"{lo}" if lo == hi else f"{lo}..{hi} in steps of 8"
            raise ValueError(f"{name}: a {key_bits}-bit key is not allowed ({what})")
        nbytes = key_bits // 8
    iv = 16 if family == "chacha20" else (0 if mode == "ecb" else block)
    return Cipher(name, family, mode, nbytes, iv, block)


# --------------------------------------------------------------------------- OpenSSL


class OpenSSLError(RuntimeError):
    """OpenSSL could not compute the reference (library, provider or cipher missing)."""


@lru_cache(maxsize=1)
def _libcrypto() -> ctypes.CDLL:
    path = ctypes.util.find_library("crypto")
    if not path:
        raise OpenSSLError("libcrypto not found (install libssl3)")
    lib = ctypes.CDLL(path)
    vp, ip, cp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p
    lib.OSSL_PROVIDER_load.restype = vp
    lib.OSSL_PROVIDER_load.argtypes = [vp, cp]
    lib.EVP_CIPHER_fetch.restype = vp
    lib.EVP_CIPHER_fetch.argtypes = [vp, cp, cp]
    lib.EVP_CIPHER_free.argtypes = [vp]
    lib.EVP_CIPHER_CTX_new.restype = vp
    lib.EVP_CIPHER_CTX_free.argtypes = [vp]
    lib.EVP_CipherInit_ex2.argtypes = [vp, vp, cp, cp, ctypes.c_int, vp]
    lib.EVP_CIPHER_CTX_set_key_length.argtypes = [vp, ctypes.c_int]
    lib.EVP_CipherUpdate.argtypes = [vp, cp, ip, cp, ctypes.c_int]
    lib.EVP_CipherFinal_ex.argtypes = [vp, cp, ip]
    lib.OpenSSL_version.restype = cp
    lib.OpenSSL_version.argtypes = [ctypes.c_int]
    return lib


@lru_cache(maxsize=1)
def _providers() -> bool:
    """Load the default and the legacy provider (loading one explicitly stops the
    default from loading implicitly, so both are loaded); True if legacy loaded."""
    lib = _libcrypto()
    lib.OSSL_PROVIDER_load(None, b"default")
    return bool(lib.OSSL_PROVIDER_load(None, b"legacy"))


def openssl_version() -> str:
    return _libcrypto().OpenSSL_version(0).decode()


def openssl_crypt(c: Cipher, encrypt: bool, data: bytes) -> bytes:
    """OpenSSL EVP's output for ``data`` with the cipher's key and IV (padding as
    OpenSSL's default: PKCS#7 for ECB and CBC)."""
    lib = _libcrypto()
    legacy_ok = _providers()
    evp = lib.EVP_CIPHER_fetch(None, c.name.encode(), None)
    if not evp:
        hint = (
            " (OpenSSL's legacy provider could not be loaded)" if not legacy_ok else ""
        )
        raise OpenSSLError(f"OpenSSL has no cipher {c.name!r}{hint}")
    ctx = lib.EVP_CIPHER_CTX_new()
    try:
        key, iv = c.key(), c.iv()
        if lib.EVP_CipherInit_ex2(ctx, evp, None, None, int(encrypt), None) != 1:
            raise OpenSSLError(f"{c.name}: EVP_CipherInit_ex2 failed")
        if lib.EVP_CIPHER_CTX_set_key_length(ctx, len(key)) != 1:
            raise OpenSSLError(f"{c.name}: OpenSSL refuses a {8 * len(key)}-bit key")
        if lib.EVP_CipherInit_ex2(ctx, None, key, iv or None, -1, None) != 1:
            raise OpenSSLError(f"{c.name}: setting key and IV failed")
        out = ctypes.create_string_buffer(len(data) + 64)
        n1, n2 = ctypes.c_int(0), ctypes.c_int(0)
        if lib.EVP_CipherUpdate(ctx, out, ctypes.byref(n1), data, len(data)) != 1:
            raise OpenSSLError(f"{c.name}: EVP_CipherUpdate failed")
        tail = ctypes.cast(ctypes.addressof(out) + n1.value, ctypes.c_char_p)
        if lib.EVP_CipherFinal_ex(ctx, tail, ctypes.byref(n2)) != 1:
            raise OpenSSLError(f"{c.name}: EVP_CipherFinal_ex failed (bad padding?)")
        return out.raw[: n1.value + n2.value]
    finally:
        lib.EVP_CIPHER_CTX_free(ctx)
        lib.EVP_CIPHER_free(evp)


def first_difference(a: bytes, b: bytes) -> int | None:
    """Offset of the first differing byte (a length difference counts); None: equal."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))
