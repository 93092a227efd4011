# zstd_raw.py IN OUT: a pipe-mode `perf record -z` file with each PERF_RECORD_COMPRESSED
# payload re-encoded as zstd frames of raw (stored) blocks: the records inside are then
# plain bytes in the file, which a fuzzer's mutations reach.
import ctypes, struct, sys
z = ctypes.CDLL("libzstd.so.1")
class Buf(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]
z.ZSTD_createDStream.restype = ctypes.c_void_p
z.ZSTD_decompressStream.restype = ctypes.c_size_t
z.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(Buf), ctypes.POINTER(Buf)]
ds = z.ZSTD_createDStream()
def decompress(payload):
    src = ctypes.create_string_buffer(payload, len(payload))
    inb = Buf(ctypes.cast(src, ctypes.c_void_p), len(payload), 0)
    out = b""
    while True:
        dst = ctypes.create_string_buffer(1 << 20)
        outb = Buf(ctypes.cast(dst, ctypes.c_void_p), 1 << 20, 0)
        z.ZSTD_decompressStream(ds, ctypes.byref(outb), ctypes.byref(inb))
        out += dst.raw[:outb.pos]
        if inb.pos == inb.size and outb.pos < outb.size:
            return out
def raw_frame(data):
    # magic, frame header descriptor 0 (no size, window descriptor follows), window 1 MiB
    f = struct.pack("<IBB", 0xFD2FB528, 0, (20 - 10) << 3)
    hdr = 1 | (0 << 1) | (len(data) << 3)  # last block, raw
    return f + struct.pack("<I", hdr)[:3] + data
d = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<Q", d, 8)[0] == 16, "pipe mode only"
out = d[:16]; p = 16
while p + 8 <= len(d):
    typ, misc, size = struct.unpack_from("<IHH", d, p)
    if size < 8: break
    if typ == 81:
        plain = decompress(d[p + 8:p + size])
        for i in range(0, len(plain), 60000):
            body = raw_frame(plain[i:i + 60000])
            out += struct.pack("<IHH", 81, 0, 8 + len(body)) + body
    else:
        out += d[p:p + size]
    p += size
open(sys.argv[2], "wb").write(out)
