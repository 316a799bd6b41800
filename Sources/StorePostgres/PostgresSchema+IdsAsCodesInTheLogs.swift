extension PostgresSchema {
    /// The rows written for every tick and every push name their adventure by a
    /// number of its own (`adventure.code`, 8 bytes) instead of its id (37 bytes
    /// as text, the game's and the API's id), and the tick log names the node
    /// that stored the tick by `node.code` (4 bytes): in the tick log's row and
    /// its key, each push's message and each push log entry with its index by
    /// adventure. A heap row goes into the WAL with every byte it holds, and an
    /// index entry too. Codes are given once, by PostgreSQL, and never change:
    /// nothing deletes adventures or nodes.
    ///
    /// The columns change type in place, each table rewritten once with its
    /// indexes, their codes looked up by a function that refuses an id that is
    /// not stored rather than leave its rows without an adventure (the logs have
    /// no foreign keys since v15). In place, the codes fall where the text was,
    /// each on its 8 or 4 bytes with no padding before it. A node that stored a
    /// tick but has no row of its own gets one, stopped. As long as rewriting the
    /// three tables (docs/operations.md). `tick_log_with_ids` shows which node
    /// stored which tick of which adventure, and when, by their ids, for people
    /// and scripts that read it (the server reads the table); it names no other
    /// column, so that a later change to the events or pushes need not touch it.
    static let v25IdsAsCodesInTheLogs = [
        "ALTER TABLE adventure ADD COLUMN code BIGINT GENERATED ALWAYS AS IDENTITY",
        "CREATE UNIQUE INDEX adventure_by_code ON adventure(code)",
        "ALTER TABLE node ADD COLUMN code INTEGER GENERATED ALWAYS AS IDENTITY",
        "CREATE UNIQUE INDEX node_by_code ON node(code)",
        """
        INSERT INTO node (id, started_at, alive_until, stopped_at)
        SELECT node, now(), now(), now() FROM (SELECT DISTINCT node FROM tick_log WHERE node IS NOT NULL) AS logged
        ON CONFLICT (id) DO NOTHING
        """,
        """
        CREATE FUNCTION v25_adventure_code(adventure_id TEXT) RETURNS BIGINT LANGUAGE plpgsql STABLE AS $$
        DECLARE found BIGINT;
        BEGIN
            IF adventure_id IS NULL THEN RETURN NULL; END IF;
            SELECT code INTO found FROM adventure WHERE id = adventure_id;
            IF found IS NULL THEN RAISE EXCEPTION 'the logs name adventure % that is not stored', adventure_id; END IF;
            RETURN found;
        END $$
        """,
        """
        CREATE FUNCTION v25_node_code(node_id TEXT) RETURNS INTEGER LANGUAGE sql STABLE AS $$
            SELECT code FROM node WHERE id = node_id
        $$
        """,
        """
        ALTER TABLE tick_log ALTER COLUMN adventure TYPE BIGINT USING v25_adventure_code(adventure),
            ALTER COLUMN node TYPE INTEGER USING v25_node_code(node)
        """,
        "ALTER TABLE tick_log RENAME COLUMN adventure TO adventure_code",
        "ALTER TABLE tick_log RENAME COLUMN node TO node_code",
        "ALTER TABLE outbox_message ALTER COLUMN adventure TYPE BIGINT USING v25_adventure_code(adventure)",
        "ALTER TABLE outbox_message RENAME COLUMN adventure TO adventure_code",
        "ALTER TABLE push_log ALTER COLUMN adventure TYPE BIGINT USING v25_adventure_code(adventure)",
        "ALTER TABLE push_log RENAME COLUMN adventure TO adventure_code",
        """
        CREATE VIEW tick_log_with_ids AS
        SELECT a.id AS adventure, l.tick, n.id AS node, l.stored_at
        FROM tick_log l JOIN adventure a ON a.code = l.adventure_code LEFT JOIN node n ON n.code = l.node_code
        """,
        "DROP FUNCTION v25_adventure_code(TEXT)",
        "DROP FUNCTION v25_node_code(TEXT)",
    ]
}
