# description: mmiotrace with a region registered through usertrace/mmio.h: MAP, writes (immediates, registers) and reads of 1, 2, 4 and 8 bytes as W/R lines with the physical address and value, a read-modify-write as UNKNOWN with its bytes, a marker as MARK, nothing for the page's other bytes, the program's own SIGSEGV handler gets its own fault, UNMAP; the pc is the access's (checked by the program's exit status and the addresses being in the executable)
src=s-mmio.c
flags="pg fentry pg-nopie"
ropts="-t mmiotrace"
cmd="replay"
filter='s/ [0-9]*\.[0-9]\{6\} / T /; s/^\([RW] [0-9] T 1 0x[0-9a-f]* 0x[0-9a-f]*\) 0x[0-9a-f]* 0$/\1 PC 0/; s/^\(MAP T 1 0xfebf0000\) 0x[0-9a-f]* /\1 VIRT /; s/^\(UNKNOWN T 1 0x[0-9a-f]* [0-9a-f,]*\) 0x[0-9a-f]* 0$/\1 PC 0/'
---
# tracer: mmiotrace
#
VERSION 20070824
MAP T 1 0xfebf0000 VIRT 0x40 0x0 0
W 1 T 1 0xfebf0000 0xab PC 0
W 2 T 1 0xfebf0002 0x7788 PC 0
W 4 T 1 0xfebf0004 0xcafe0042 PC 0
W 8 T 1 0xfebf0008 0x1122334455667788 PC 0
UNKNOWN T 1 0xfebf0004 83,00,01 PC 0
MARK T reads
R 1 T 1 0xfebf0000 0xab PC 0
R 2 T 1 0xfebf0002 0x7788 PC 0
R 4 T 1 0xfebf0004 0xcafe0043 PC 0
R 8 T 1 0xfebf0008 0x1122334455667788 PC 0
UNMAP T 1 0x0 0
