package x

a := 2e308
b := -2.5e308
c := 123456789012345678901234567890
d := [a + 1, a - b, a * 2, a / 3, c % 7, a > c, a == 20e307]
e := sprintf("%v %d %s %.3f", [a, c, b, 1.5e-300])
f := format_int(c, 16)
g := [x | some x in numbers.range(1, 3)]
h := to_number("1e400")
