"""Exact and perceptual hashes of an image file's decoded pixels.

Exact duplicates as the paper defines them (§4.5: pixelwise L2 distance 0): the
SHA-256 of the decoded RGB array and its shape (the file's bytes differ between two
encodings of the same pixels; the pixels decide), confirmed pixel by pixel before a
pair is reported (`same_pixels`). Near duplicates: imagehash's dHash (64 bits), which
survives resizing and re-encoding (not cropping: the embeddings find those).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from PIL import Image

DHASH_BITS = 64


def decoded_rgb(path: str | Path) -> np.ndarray:
    """The file's pixels as decoded, uint8 [H, W, 3] (the same RGB conversion as the model's pipeline)."""
    from models.pipeline import to_rgb

    with Image.open(path) as image:
        image.load()
        return np.asarray(to_rgb(image))


def image_hashes(path: str | Path) -> dict:
    """{"sha": hex of the decoded pixels, "dhash": 64-bit int} or {"error": reason}."""
    import imagehash

    from models.pipeline import ImageDecodeError, decode_image

    try:
        pixels = decode_image(path, decoded_rgb_transform)
    except ImageDecodeError as exc:
        return {"error": str(exc)}
    digest = hashlib.sha256(repr(pixels.shape).encode() + pixels.tobytes()).hexdigest()
    dhash = int(str(imagehash.dhash(Image.fromarray(pixels))), 16)
    return {"sha": digest, "dhash": dhash}


def decoded_rgb_transform(image: Image.Image) -> np.ndarray:
    """`decode_image`'s transform for hashing: the decoded RGB pixels as they are."""
    return np.asarray(image)


def same_pixels(a: str | Path, b: str | Path) -> bool:
    """Whether two files decode to identical pixels (the confirmation of a hash match)."""
    try:
        x, y = decoded_rgb(a), decoded_rgb(b)
    except Exception:  # a file that went away or broke since it was hashed: not confirmed
        return False
    return x.shape == y.shape and bool(np.array_equal(x, y))


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count() if hasattr(int, "bit_count") else bin(a ^ b).count("1")
