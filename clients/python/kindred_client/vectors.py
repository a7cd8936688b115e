"""Client vectors as base64 of little-endian float32, the form `records/upsert` and `search/query` take
besides a JSON array of numbers (as OpenAI's `encoding_format: "base64"` answers them)."""

import array
import base64
import sys


def vector_base64(values):
    """`values` (floats, an `array('f')`, or anything with the buffer protocol holding float32, such as a
    numpy float32 array) as base64 of their float32 values, little-endian. Pass the string as a record's
    `vector`: the server then reads 4 bytes per value instead of parsing a decimal number.

    >>> vector_base64([1.0, -2.0])
    'AACAPwAAAMA='
    """
    if isinstance(values, array.array) and values.typecode == "f":
        a = values
    else:
        try:
            view = memoryview(values)
        except TypeError:
            view = None
        if view is not None and view.format == "f" and view.ndim == 1:
            a = array.array("f", view.tobytes())
        else:
            a = array.array("f", [float(x) for x in values])
    if sys.byteorder == "big":
        a = array.array("f", a)
        a.byteswap()
    return base64.b64encode(a.tobytes()).decode("ascii")


def vector_from_base64(text):
    """The floats of a base64 string of little-endian float32 (the inverse of `vector_base64`)."""
    a = array.array("f")
    a.frombytes(base64.b64decode(text, validate=True))
    if sys.byteorder == "big":
        a.byteswap()
    return a.tolist()
