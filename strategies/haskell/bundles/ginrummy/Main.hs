-- | mine's driver for a Gin Rummy `Player.hs`: the player imported `safe`, as the course's
-- Main does, and called once per line of stdin (see Protocol):
--
-- > pick TOP MINE THEIRS MEMORY DRAW HAND  ->  ok Stock|Discard MEMORY NS
-- > play PICKED MINE THEIRS MEMORY HAND    ->  ok Gin|Knock|Drop CARD MEMORY NS
-- > melds MINE THEIRS MEMORY HAND          ->  ok MELDS NS
--
-- MINE and THEIRS are the scores; MEMORY a text (`-` for none in pick); DRAW `stock`,
-- `discard` or `-`; MELDS `Kind:cards` joined by `/` (`.` for none).
module Main (main) where

import Cards (Card)
import Data.List (intercalate)
import Protocol
import Rummy.Types (Act (..), Action (Action), Draw (..), Meld (..))
import safe Player (makeMelds, pickCard, playCard)

main :: IO ()
main = serve answer

answer :: [String] -> Either String String
answer ["pick", top, mine, theirs, memory, draw, hand] = do
  (d, memoryOut) <-
    pickCard <$> readCard top <*> scores mine theirs <*> readMaybeText memory
      <*> readDraw draw <*> readCards hand
  pure (drawText d ++ " " ++ textField memoryOut)
answer ["play", picked, mine, theirs, memory, hand] = do
  (Action act card, memoryOut) <-
    playCard <$> readCard picked <*> scores mine theirs <*> readText memory <*> readCards hand
  pure (show act ++ " " ++ cardText card ++ " " ++ textField memoryOut)
answer ["melds", mine, theirs, memory, hand] = do
  melds <- makeMelds <$> scores mine theirs <*> readText memory <*> readCards hand
  pure (if null melds then "." else joinSlash (map meldText melds))
answer _ = Left "expected: pick TOP MINE THEIRS MEMORY DRAW HAND | play PICKED MINE THEIRS MEMORY HAND | melds MINE THEIRS MEMORY HAND"

scores :: String -> String -> Either String (Int, Int)
scores mine theirs = (,) <$> readNumber mine <*> readNumber theirs

readDraw :: String -> Either String (Maybe Draw)
readDraw text = case text of
  "-" -> Right Nothing
  "stock" -> Right (Just Stock)
  "discard" -> Right (Just Discard)
  _ -> Left ("not a draw: " ++ text)

drawText :: Draw -> String
drawText Stock = "Stock"
drawText Discard = "Discard"

meldText :: Meld -> String
meldText meld = case meld of
  Deadwood a -> named "Deadwood" [a]
  Set3 a b c -> named "Set3" [a, b, c]
  Set4 a b c d -> named "Set4" [a, b, c, d]
  Straight3 a b c -> named "Straight3" [a, b, c]
  Straight4 a b c d -> named "Straight4" [a, b, c, d]
  Straight5 a b c d e -> named "Straight5" [a, b, c, d, e]
  where
    named :: String -> [Card] -> String
    named kind cards = kind ++ ":" ++ cardsText cards

joinSlash :: [String] -> String
joinSlash = intercalate "/"
