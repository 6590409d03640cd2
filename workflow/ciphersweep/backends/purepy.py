"""aes-purepy (job/kernel_purepy.py): ciphers written in Python as a study's own code
runs them, on lists and ints or on NumPy arrays."""

from __future__ import annotations

from ciphersweep.backends.base import Backend

NAME = "purepy"

BACKEND = Backend(
    name=NAME,
    kind="python",
    order=70,
    impls=(NAME, "numpy"),
    kernel_module=f"kernel_{NAME}",
    named=True,
    library_mode=True,
    cipher_flag=True,
    impl_flag=True,
    own_impl=NAME,
    start_s=0.3,
    # the Python runner with NumPy arrays: 4-13 kB/s for AES, 3DES 7 kB/s
    rates={NAME: 20e3, "numpy": 2e3},
    impl_kinds={NAME: "pure-python", "numpy": "numpy"},
    traits={"": ("python",), "numpy": ("numpy",)},
    libraries={"numpy": (("NumPy", "numpy"),)},
    native_only=True,
)
