import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from app.orders import order_total, refund  # noqa: E402
from app.reports import weekly  # noqa: E402


class OrdersTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(order_total(3, 10), 30)

    def test_refund(self):
        self.assertEqual(refund(5), -5)

    def test_weekly(self):
        self.assertEqual(weekly([1, 2]), [2, 4])


if __name__ == "__main__":
    unittest.main()
