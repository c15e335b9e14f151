package app

import (
	"reflect"
	"testing"
)

// TestSettingsArePlainValues checks Settings holds values only: anything
// that acts (an interface, a function, a pointer, a channel) is a
// dependency and belongs in Deps.
func TestSettingsArePlainValues(t *testing.T) {
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		switch ty.Kind() {
		case reflect.Interface, reflect.Func, reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
			t.Errorf("%s is a %s: Settings holds plain values, dependencies go in Deps", path, ty.Kind())
		case reflect.Struct:
			if ty.PkgPath() != reflect.TypeFor[Settings]().PkgPath() {
				return // a value type of another package, such as time.Time
			}
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Map:
			walk(path+"[key]", ty.Key())
			walk(path+"[value]", ty.Elem())
		case reflect.Slice, reflect.Array:
			walk(path+"[]", ty.Elem())
		}
	}
	walk("Settings", reflect.TypeFor[Settings]())
}
