/// The backend's error object: `{"error": "<code>", "message": "…"}` (SolidFocus checks
/// `error.code`, so `{"error": {"code": …, "message": …}}` is read too).
struct ErrorBody: Equatable {
    var code: String?
    var message: String?

    init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }

    init(_ bytes: [UInt8]) {
        guard let object = try? JSONFields.object(bytes, "error") else {
            self.init(code: nil, message: nil)
            return
        }
        if let nested = object["error"] as? [String: Any] {
            self.init(code: nested["code"] as? String, message: nested["message"] as? String)
        } else {
            self.init(code: (object["error"] as? String) ?? (object["code"] as? String), message: object["message"] as? String)
        }
    }
}
