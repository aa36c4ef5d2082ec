public import TestSupport
public import ReferenceBackend

/// The test support's clock drives the backend's token expiry and stamps.
extension ManualClock: BackendClock {}
