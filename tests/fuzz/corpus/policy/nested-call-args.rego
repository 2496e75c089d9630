package t

p if {
	x := object.get(input.a[k19], object.get(input.a[k18], object.get(input.a[k17], object.get(input.a[k16], object.get(input.a[k15], object.get(input.a[k14], object.get(input.a[k13], object.get(input.a[k12], object.get(input.a[k11], object.get(input.a[k10], object.get(input.a[k9], object.get(input.a[k8], object.get(input.a[k7], object.get(input.a[k6], object.get(input.a[k5], object.get(input.a[k4], object.get(input.a[k3], object.get(input.a[k2], object.get(input.a[k1], object.get(input.a[k0], y, 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1), 1)
	x > 0
}
