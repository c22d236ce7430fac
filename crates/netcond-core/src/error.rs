//! The configuration-error convention shared by every netcond crate.

/// Defines a configuration-error enum the netcond way.
///
/// Each variant is one rule that a configuration must satisfy; its message names
/// the rule and where it comes from (an RFC section, or a limit of the fixed-point
/// representation). The enum is small and `Copy`, implements `Display` and
/// `core::error::Error`, and offers [`message`](#method.message) as a `const fn`.
///
/// ```
/// netcond_core::config_error! {
///     /// Why a widget configuration was refused.
///     pub enum WidgetError {
///         /// The rate must not be zero.
///         ZeroRate => "rate must be greater than zero (RFC 9999 section 2)",
///     }
/// }
/// assert_eq!(
///     WidgetError::ZeroRate.to_string(),
///     "rate must be greater than zero (RFC 9999 section 2)"
/// );
/// ```
#[macro_export]
macro_rules! config_error {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $msg:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The rule this error reports, as a sentence.
            #[must_use]
            pub const fn message(&self) -> &'static str {
                match self {
                    $( Self::$variant => $msg ),+
                }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.message())
            }
        }

        impl ::core::error::Error for $name {}
    };
}
