// The push values (tokens, push types, topics, broadcast channels) and the small
// encodings live below, in PushVocabulary, which the APNs library shares without
// the game's ids; every module that speaks Vocabulary speaks them too.
@_exported import PushVocabulary
