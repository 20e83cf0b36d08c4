-- | The line protocol mine's drivers speak on stdin and stdout, for the FIT2102 bundles
-- (TwentyOne, Gin Rummy): one request a line, one reply a line, `ok <answer> <ns>` with
-- the nanoseconds the request took (parsed, answered and written out), or
-- `error <reason>`. Fields are separated by one space; cards are the course notation
-- (suit then rank: SA, H10, DQ), lists of cards joined by `+` (`.` for none); a text is
-- `=` and the text with every character outside [A-Za-z0-9_.:;,-] written `%` and six
-- hex digits of its code point; an absent text is `-`.
module Protocol
  ( serve,
    cardText,
    readCard,
    cardsText,
    readCards,
    textField,
    readText,
    readMaybeText,
    readNumber,
    splitOn,
  )
where

import Cards (Card (Card), Rank (..), Suit (..))
import Data.Char (chr, isAsciiLower, isAsciiUpper, isDigit, ord)
import Data.List (foldl')
import GHC.Clock (getMonotonicTimeNSec)
import Numeric (readHex, showHex)
import System.IO (BufferMode (LineBuffering), hSetBuffering, isEOF, stdout)
import Text.Read (readMaybe)

-- | Answer every line of stdin with `answer` until stdin ends.
serve :: ([String] -> Either String String) -> IO ()
serve answer = hSetBuffering stdout LineBuffering >> loop
  where
    loop = do
      done <- isEOF
      if done then pure () else getLine >>= reply >> loop
    reply line = do
      started <- getMonotonicTimeNSec
      let out = either ("error " ++) ("ok " ++) (answer (words line))
      _ <- pure $! foldl' (\acc c -> acc + ord c) 0 out
      ended <- getMonotonicTimeNSec
      putStrLn (if take 3 out == "ok " then out ++ " " ++ show (ended - started) else out)

suits :: [(Char, Suit)]
suits = [('S', Spade), ('H', Heart), ('D', Diamond), ('C', Club)]

ranks :: [(String, Rank)]
ranks = zip ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] [Ace ..]

cardText :: Card -> String
cardText (Card s r) =
  [c | (c, s') <- suits, s' == s] ++ concat [t | (t, r') <- ranks, r' == r]

readCard :: String -> Either String Card
readCard text = case text of
  c : rest | Just s <- lookup c suits, Just r <- lookup rest ranks -> Right (Card s r)
  _ -> Left ("not a card: " ++ text)

cardsText :: [Card] -> String
cardsText [] = "."
cardsText cards = joinWith '+' (map cardText cards)

readCards :: String -> Either String [Card]
readCards "." = Right []
readCards text = traverse readCard (splitOn '+' text)

textField :: String -> String
textField = ('=' :) . concatMap escape
  where
    escape c
      | isAsciiLower c || isAsciiUpper c || isDigit c || c `elem` "_.:;,-" = [c]
      | otherwise = '%' : pad (showHex (ord c) "")
    pad h = replicate (6 - length h) '0' ++ h

readText :: String -> Either String String
readText ('=' : text) = unescape text
readText text = Left ("not a text: " ++ text)

readMaybeText :: String -> Either String (Maybe String)
readMaybeText "-" = Right Nothing
readMaybeText text = Just <$> readText text

unescape :: String -> Either String String
unescape text = case text of
  [] -> Right []
  '%' : rest -> case readHex (take 6 rest) of
    [(code, "")] | length (take 6 rest) == 6 && code <= 0x10FFFF -> (chr code :) <$> unescape (drop 6 rest)
    _ -> Left "bad escape in a text"
  c : rest -> (c :) <$> unescape rest

readNumber :: String -> Either String Int
readNumber text = maybe (Left ("not a number: " ++ text)) Right (readMaybe text)

splitOn :: Char -> String -> [String]
splitOn sep text = case break (== sep) text of
  (part, _ : rest) -> part : splitOn sep rest
  (part, []) -> [part]

joinWith :: Char -> [String] -> String
joinWith _ [] = ""
joinWith sep (first : rest) = first ++ concatMap (sep :) rest
