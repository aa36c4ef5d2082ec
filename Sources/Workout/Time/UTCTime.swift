public import CivilTime

/// The product's one instant lives with its one calendar (``CivilTime``), which the reference
/// backend and the wall clock share; the engine, the store and their users name it from here.
public typealias UTCTime = CivilTime.UTCTime
