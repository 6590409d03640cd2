"""aes-openssl: OpenSSL's EVP interface (kernels/src/main_openssl.c), any EVP
cipher by name."""

from __future__ import annotations

from ciphersweep.backends.base import Backend, axis, section

# backends.openssl in a campaign file (the JSON Schema of its section)
CONFIG = section({"ciphers": axis("string", ["aes-128-ctr"])})

BACKEND = Backend(
    name="openssl",
    kind="native",
    order=40,
    named=True,
    cipher_list=True,
    library_mode=True,
    cipher_flag=True,
    own_impl="evp",
    impl_kinds={"": "library"},
    traits={"": ("native", "openssl")},
    native_library="OpenSSL",
    config=CONFIG,
)
