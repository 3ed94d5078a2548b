# embed.cmake — write the bytes of IN as a C array into OUT (cmake -P; no
# other tool needed).  Usage:
#   cmake -DIN=data/gpu_specs.csv -DOUT=gpu_specs_csv.c -DSYMBOL=gd_gpu_specs_csv -DHEADER=model/specs_internal.h -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR nbytes "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# one line per 16 bytes
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " body "${body}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by cmake/embed.cmake at build time; do not edit. */\n"
  "#include \"${HEADER}\"\n\n"
  "const unsigned char ${SYMBOL}[] = {\n    ${body}0x00};\n"
  "const size_t ${SYMBOL}_len = ${nbytes};\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
