# pe_seed.py OUT: a small x64 PE image (.NET's Linux machine stamp) for fuzz_pe_unwind's
# seed corpus, shaped as crossgen2 lays out ReadyToRun code: a .text of functions with
# prologues and epilogues, a .data holding their UNWIND_INFO and the exception directory.
# Its functions use every unwind code the format has for integer registers (pushes, small
# and large allocations, a frame register, saves by MOV, a chained entry) and every epilogue
# shape the unwinder reads (add rsp, lea rsp, pops, ret, a tail jump).
import struct, sys

TEXT_RVA, DATA_RVA, ALIGN = 0x1000, 0x2000, 0x200

# (code bytes, prologue size, unwind codes [(offset, op, info, extra u16s)], frame reg/off, chain to)
funcs = [
    # push rbp; push rbx; sub rsp,0x18; lea rbp,[rsp+0x20]; nop; add rsp,0x18; pop rbx; pop rbp; ret
    (bytes.fromhex("55534883ec18488d6c242090" "4883c4185b5dc3"), 11,
     [(6, 2, 2, []), (2, 0, 3, []), (1, 0, 5, [])], (0, 0), None),
    # frame register: push rbp; mov rbp,rsp (SET_FPREG off 0); sub rsp,0x100 (ALLOC_LARGE 0x100/8)
    # nop; lea rsp,[rbp+0]; pop rbp; ret
    (bytes.fromhex("554889e54881ec00010000" "90" "488d65005dc3"), 11,
     [(11, 1, 0, [0x20]), (4, 3, 0, []), (1, 0, 5, [])], (5, 0), None),
    # mov [rsp+8],rbx (SAVE_NONVOL); sub rsp,0x28; nop; mov rbx,[rsp+0x30]; add rsp,0x28; jmp rax
    (bytes.fromhex("48895c24084883ec28" "90" "488b5c24304883c42848ffe0"), 9,
     [(9, 2, 4, []), (5, 4, 3, [6])], (0, 0), None),
    # a frameless thunk: lea rax,[rip]; jmp [rax]
    (bytes.fromhex("488d0500000000ff20"), 0, [], (0, 0), None),
    # the chained part of the first function (cold code): nop; ret
    (bytes.fromhex("90c3"), 0, [], (0, 0), 0),
    # ALLOC_LARGE with a 32-bit size and SAVE_NONVOL_FAR: sub rsp,0x12340; mov [rsp+0x12348],r12
    (bytes.fromhex("4881ec40230100" "4c89a42448230100" "90" "4881c440230100c3"), 15,
     [(15, 5, 12, [0x2348, 0x1]), (7, 1, 1, [0x2340, 0x1])], (0, 0), None),
]

text, starts = b"", []
for code, *_ in funcs:
    while len(text) % 16:
        text += b"\xcc"
    starts.append(TEXT_RVA + len(text))
    text += code

data, infos = b"", []
for i, (code, prolog, codes, (freg, foff), chain) in enumerate(funcs):
    infos.append(DATA_RVA + len(data))
    slots = []
    for off, op, info, extra in codes:
        slots.append(struct.pack("<BB", off, op | (info << 4)))
        slots += [struct.pack("<H", x) for x in extra]
    flags = 4 if chain is not None else 3  # CHAININFO, else EHANDLER|UHANDLER as crossgen2
    blob = struct.pack("<BBBB", 1 | (flags << 3), prolog, len(slots), freg | (foff << 4))
    blob += b"".join(slots) + (b"\0\0" if len(slots) % 2 else b"")
    if chain is not None:
        blob += struct.pack("<III", starts[chain], starts[chain] + len(funcs[chain][0]), infos[chain])
    else:
        blob += struct.pack("<I", 0)  # the handler: crossgen2 puts its GC info after
    data += blob
    while len(data) % 4:
        data += b"\0"
pdata_rva = DATA_RVA + len(data)
for i, (code, *_ ) in enumerate(funcs):
    data += struct.pack("<III", starts[i], starts[i] + len(code), infos[i])
pdata_size = len(funcs) * 12

def pad(b, n=ALIGN):
    return b + b"\0" * (-len(b) % n)

nsec, optsize = 2, 240
hdr = bytearray(b"MZ" + b"\0" * 0x3a + struct.pack("<I", 0x80))
hdr += b"\0" * (0x80 - len(hdr))
hdr += b"PE\0\0" + struct.pack("<HHIIIHH", 0x8664 ^ 0x7b79, nsec, 0, 0, 0, optsize, 0x2022)
opt = bytearray(optsize)
struct.pack_into("<H", opt, 0, 0x20b)
struct.pack_into("<Q", opt, 24, 0x180000000)
struct.pack_into("<II", opt, 32, 0x1000, ALIGN)
struct.pack_into("<I", opt, 108, 16)
struct.pack_into("<II", opt, 112 + 3 * 8, pdata_rva, pdata_size)
hdr += opt
text_raw = ALIGN
data_raw = text_raw + len(pad(text))
for name, rva, vsize, raw, rawsize, chars in [
        (b".text", TEXT_RVA, len(text), text_raw, len(pad(text)), 0x60000020),
        (b".data", DATA_RVA, len(data), data_raw, len(pad(data)), 0xc0000040)]:
    hdr += struct.pack("<8sIIIIIIHHI", name, vsize, rva, rawsize, raw, 0, 0, 0, 0, chars)
image = pad(bytes(hdr)) + pad(text) + pad(data)
open(sys.argv[1], "wb").write(image)
