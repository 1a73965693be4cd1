//! `utf8kit::validate`, `is_valid` and every available kernel agree with
//! `core::str::from_utf8` on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let expected = core::str::from_utf8(data)
        .map(|_| ())
        .map_err(|e| (e.valid_up_to(), e.error_len()));
    let ours = utf8kit::validate(data);
    assert_eq!(ours.map_err(|e| (e.valid_up_to(), e.error_len())), expected);
    assert_eq!(utf8kit::is_valid(data), expected.is_ok());
    for kernel in utf8kit::Kernel::available() {
        assert_eq!(kernel.validate(data), Some(ours), "{}", kernel.name());
        assert_eq!(
            kernel.is_valid(data),
            Some(ours.is_ok()),
            "{}",
            kernel.name()
        );
    }
});
