// The server: see README "Modules".
