# bench.mk - included by the top-level Makefile
