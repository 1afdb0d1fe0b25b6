"""A read-then-write transaction waits for a concurrent writer instead of failing (SQLite WAL)."""
import threading
import time

from irisrag.extensions import open_database


def test_sqlite_transactions_wait_for_a_concurrent_writer(tmp_path):
    url = f"sqlite:///{tmp_path / 'lock.db'}"
    first, second = open_database(url), open_database(url)
    first.execute_sql("CREATE TABLE t (n INTEGER)")
    errors: list[Exception] = []

    def writer():
        with first.atomic():
            first.execute_sql("INSERT INTO t VALUES (1)")
            time.sleep(0.5)  # hold the write lock while the other transaction reads, then writes

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.1)
    try:
        with second.atomic():
            count = second.execute_sql("SELECT COUNT(*) FROM t").fetchone()[0]
            second.execute_sql("INSERT INTO t VALUES (?)", (count + 10,))
    except Exception as exc:  # "database is locked" without IMMEDIATE transactions
        errors.append(exc)
    thread.join()
    assert not errors
    rows = [r[0] for r in second.execute_sql("SELECT n FROM t ORDER BY n").fetchall()]
    assert rows == [1, 11]  # the second transaction saw the first one's row: it waited, then read
