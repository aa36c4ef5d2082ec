/// The backend's error object: `{"error": "<code>", "message": "…"}` (SolidFocus checks
/// `error.code`, so `{"error": {"code": …, "message": …}}` is read too).
package struct ErrorBody: Equatable {
    package var code: String?
    package var message: String?

    init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }

    package init(_ bytes: [UInt8]) {
        guard let object = try? JSONFields.object(bytes, "error") else {
            self.init(code: nil, message: nil)
            return
        }
        if let nested = object["error"]?.object {
            self.init(code: nested["code"]?.string, message: nested["message"]?.string)
        } else {
            self.init(code: object["error"]?.string ?? object["code"]?.string, message: object["message"]?.string)
        }
    }
}
