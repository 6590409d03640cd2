"""aes-purepy (job/kernel_purepy.py): ciphers written in Python as a study's own code
runs them, on lists and ints or on NumPy arrays."""

from __future__ import annotations

from ciphersweep.backends.base import Backend, axis, section

NAME = "purepy"

# backends.purepy in a campaign file (the JSON Schema of its section)
CONFIG = section(
    {
        "ciphers": axis(
            {
                "enum": [
                    *(f"aes-{k}-ecb" for k in (128, 192, 256)),
                    "des-ede3-ecb",
                    "chacha20",
                ]
            },
            ["aes-128-ecb"],
        ),
        "impls": axis(
            {"enum": [NAME, "numpy"]},
            [NAME],
            uniqueItems=True,
            description="purepy: Python lists and ints; numpy: NumPy arrays "
            "(np.vectorize, np.nditer), the way a study's own NumPy code runs them",
        ),
        "sets": axis(
            "string",
            description="only the files of these input sets (names under inputs); "
            "default: every input",
        ),
    },
    description="ciphers in pure Python, one block at a time with S-box tables, as a "
    "study's own code (aes-purepy)",
)

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
    config=CONFIG,
)
