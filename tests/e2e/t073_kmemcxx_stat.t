# description: kmemtrace: report --kmem of the C++ program: a line per new site, the two blocks kept as LIVE, the exception's free (allocated inside operator new) noted as a free of an unknown block
src=s-kmemcxx.cc
flags="pg fentry"
opts="-O2"
ropts="-t kmemtrace"
cmd="report --kmem"
filter='s/+0x[0-9a-f]*$//'
---
#     HITS  FAILED    BYTES_ALLOC      BYTES_REQ  ALLOC/HIT    REQ/HIT   FRAG%     FREES  LIVE_BLOCKS     LIVE_BYTES  CALL_SITE
#        |       |              |              |          |          |       |         |            |              |  |
         1       0             72             64         72         64   11.11         1            0              0  aligned
         1       0             56             50         56         50   10.71         1            0              0  array
         1       0             24             16         24         16   33.33         0            1             24  kept
         1       0             24              8         24          8   66.67         0            1             24  main
         1       0             24             24         24         24    0.00         1            0              0  nothrow
         1       0             24              4         24          4   83.33         1            0              0  one
         6       0            224            166         37         27   25.89         4            2             48  [total]
# 1 process image(s); 0 anonymous mapping(s) counted
# 1 free(s) of blocks not seen allocated (before the tracer, or beyond the live table)
