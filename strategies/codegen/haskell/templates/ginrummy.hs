-- PROVENANCE: these comment lines are replaced by the generated header.
module Player (pickCard, playCard, makeMelds) where

-- The FIT2102 2020 Gin Rummy player of `mine generate ginrummy --lang
-- haskell`. It decides exactly as the Python file of the same tables (the
-- same exact meld solver on bit masks, the same fitted worths, in the same
-- floating-point order):
-- - draw: the discard if the worth of the deadwood it leaves beats the
--   expected worth of a stock draw over the live cards;
-- - discard: among the `lookahead` discards leaving the least deadwood, the
--   one worth most: the opponent's call on its next play (`called`), else my
--   next draw, less `dangerWeight` times the chance the opponent picks the
--   card up (`danger`);
-- - call: gin whenever possible, knock where the fitted `knock` policy says
--   (or the opponent knocks more often than the field it was fitted against)
--   unless the opponent would undercut it with a chance above 1 /
--   `undercutWeight` of the chance it calls on its next play if I wait
--   (`hazardRow` scaled by its knock rate against the field's), less
--   `ginWeight` times the chance my next draw lets me gin: its knock rate
--   (the fitted `knockPrior` with the knocks and declined knocks this game's
--   rounds showed, its gins counted as declines) and `heldRows` (how low a
--   hand runs).
-- The memory follows the round (the discard pile, the opponent's pickups
-- and passes, the stock's size, my hand); it is written as text and read
-- back with the bundle's parser combinators (`Parser.Parser`,
-- `Parser.Instances`), as the course asks.

import Cards (Card (Card), Rank (..), Suit (..))
import Data.Bits
  (bit, complement, countTrailingZeros, shiftL, shiftR, xor, (.&.), (.|.))
import qualified Data.IntMap.Strict as IntMap
import Data.List (foldl', sort)
import Data.Maybe (fromMaybe)
import Parser.Instances (ParseResult (Error, Result), Parser, parse)
import Parser.Parser (character, is, unexpectedCharParser, (|||))
import Rummy.Types
  ( Act (..),
    Action (Action),
    ActionFunc,
    Draw (..),
    Meld (..),
    MeldFunc,
    PlayFunc,
  )

-- The fitted tables, by name: `turnStep` and `scoreStep`, the widths of the
-- turn and score buckets; `dangerWeight`, `prune` and `lookahead`, set by
-- the generator (see the Python generator's comments); `dangerRows`,
-- DANGER[picked][passed][rank - 1], the chance the opponent picks the
-- discard up; `knockRows`, KNOCK[my score][theirs][deadwood], one character
-- per turn bucket (1 knocks); `valueRows`, VALUE[deadwood][turn bucket],
-- what that deadwood after a play is worth; `calledRows`,
-- CALLED[deadwood][turn bucket], what the opponent's call on its next play
-- is worth; `hazardRow`, HAZARD[turn bucket], the chance of that call;
-- `thrownRows`, THROWN[turn bucket][rank - 1], the chance an unseen card of
-- that rank is the opponent's next discard; `undercutWeight`, how many times
-- less likely than the opponent's call an undercut must be for a knock;
-- `ginWeight`, what a gin on my next play weighs against that call;
-- `knockPrior`, the opponents' knocks
-- and declines as pseudo-counts; `heldRows`, HELD[turn bucket][deadwood],
-- the chance a hand that never calls holds at most that deadwood. The
-- definitions from here to
-- the end marker are written by `mine generate` from the fitted tables.
-- BEGIN DATA

turnStep :: Int
turnStep = 4

scoreStep :: Int
scoreStep = 10

dangerWeight :: Double
dangerWeight = 2.0

prune :: Int
prune = 10

lookahead :: Int
lookahead = 5

dangerRows :: [[[Double]]]
dangerRows = replicate 4 (replicate 3 (replicate 13 0.1))

knockRows :: [[[String]]]
knockRows = replicate 10 (replicate 10 (replicate 11 "11111111"))

valueRows :: [[Double]]
valueRows = [replicate 8 (30.0 - fromIntegral d) | d <- [0 .. 50 :: Int]]

calledRows :: [[Double]]
calledRows = replicate 51 (replicate 8 0.0)

hazardRow :: [Double]
hazardRow = replicate 8 0.05

thrownRows :: [[Double]]
thrownRows = replicate 8 (replicate 13 0.01)

undercutWeight :: Double
undercutWeight = 2.0

ginWeight :: Double
ginWeight = 0.3

knockPrior :: [Double]
knockPrior = [1.0, 1.0]

heldRows :: [[Double]]
heldRows = replicate 8 (replicate 11 0.0)

-- END DATA

-- | The memory: the scores at the start of the round, my hand after my last
-- play, my plays this round, whether I played first, the stock's size, my
-- last discard, and masks of the cards gone dead, picked up by the
-- opponent, and discarded or passed by it; whether my last play called, and
-- the opponent's knocks and declined knocks this game.
data Memory = Memory
  { scores :: (Int, Int),
    held :: Int,
    plays :: Int,
    wentFirst :: Bool,
    stock :: Int,
    lastDiscard :: Maybe Int,
    dead :: Int,
    took :: Int,
    shunned :: Int,
    called :: Bool,
    knocked :: Int,
    declined :: Int
  }

handSize, knockLimit, ginBonus, undercutBonus, stockSize, memoryLimit :: Int
handSize = 10
knockLimit = 10
ginBonus = 25
undercutBonus = 10
stockSize = 31
memoryLimit = 10000

fullMask :: Int
fullMask = bit 52 - 1

-- | Cards as bits: suit (S, H, D, C) times 13 plus the rank (ace 0 ..
-- king 12).
indexOf :: Card -> Int
indexOf (Card s r) = suitIndex s * 13 + fromEnum r
  where
    suitIndex x = case x of
      Spade -> 0
      Heart -> 1
      Diamond -> 2
      Club -> 3

maskOf :: [Card] -> Int
maskOf = foldl' (\m c -> m .|. bit (indexOf c)) 0

-- | The single-bit masks of `mask`, lowest first.
bitsOf :: Int -> [Int]
bitsOf 0 = []
bitsOf mask = low : bitsOf (mask `xor` low)
  where
    low = mask .&. negate mask

cardValue :: Int -> Int
cardValue index = min (index `mod` 13 + 1) 10

maskValue :: Int -> Int
maskValue = sum . map (cardValue . countTrailingZeros) . bitsOf

-- * The meld solver

-- | Every meld, grouped by its lowest card, in the order the Python file
-- lists them (sets rank by rank, then straights suit by suit): the
-- declarations follow that order.
byLowest :: IntMap.IntMap [(Int, Int)]
byLowest =
  IntMap.fromListWith
    (flip (++))
    [(countTrailingZeros m, [(m, maskValue m)]) | m <- sets ++ straights]
  where
    sets =
      [ sum group
        | rank <- [0 .. 12],
          size <- [3, 4],
          group <- combinations size [bit (13 * s + rank) | s <- [0 .. 3]]
      ]
    straights =
      [ sum [bit (13 * s + low + k) | k <- [0 .. size - 1]]
        | s <- [0 .. 3],
          size <- [3, 4, 5],
          low <- [0 .. 13 - size]
      ]

combinations :: Int -> [a] -> [[a]]
combinations 0 _ = [[]]
combinations _ [] = []
combinations k (x : xs) =
  map (x :) (combinations (k - 1) xs) ++ combinations k xs

meldsFrom :: Int -> [(Int, Int)]
meldsFrom mask =
  fromMaybe [] (IntMap.lookup (countTrailingZeros mask) byLowest)

-- | The cards of `hand` that belong to at least one meld inside it.
meldable :: Int -> Int
meldable hand = covered .|. setCards
  where
    block = bit 13 - 1
    start3 = foldl' (.|.) 0 [(bit 11 - 1) `shiftL` (13 * s) | s <- [0 .. 3]]
    run = hand .&. (hand `shiftR` 1) .&. (hand `shiftR` 2) .&. start3
    a = hand .&. block
    b = (hand `shiftR` 13) .&. block
    c = (hand `shiftR` 26) .&. block
    d = hand `shiftR` 39
    ranks = (a .&. b .&. (c .|. d)) .|. (c .&. d .&. (a .|. b))
    covered = run .|. (run `shiftL` 1) .|. (run `shiftL` 2)
    spread = 1 .|. bit 13 .|. bit 26 .|. bit 39
    setCards = if ranks /= 0 then (ranks * spread) .&. hand else 0

-- | The most deadwood points the melds inside `mask` can absorb.
absorbed :: Int -> Int
absorbed 0 = 0
absorbed mask = foldl' try (absorbed (dropLowest mask)) (meldsFrom mask)
  where
    try best (meld, points)
      | meld .&. mask == meld = max best (points + absorbed (mask `xor` meld))
      | otherwise = best

dropLowest :: Int -> Int
dropLowest mask = mask `xor` (mask .&. negate mask)

deadwood :: Int -> Int
deadwood hand = maskValue hand - absorbed (meldable hand)

-- | The deadwood `hand` leaves without each of `cards`. A card in no meld of
-- the hand leaves its melds as they are (its deadwood less the card's
-- value), so only the others are solved again.
withoutEach :: Int -> [Int] -> [Int]
withoutEach hand = map without
  where
    cover = meldable hand
    whole = deadwood hand
    without c
      | cover .&. c == 0 = whole - cardValue (countTrailingZeros c)
      | otherwise = deadwood (hand `xor` c)

-- | A least-deadwood set of melds of `hand`, found as the Python file finds
-- it.
arrangement :: Int -> [Int]
arrangement = go . meldable
  where
    go 0 = []
    go mask
      | absorbed (dropLowest mask) == target = go (dropLowest mask)
      | otherwise = case filter (fits mask target) (meldsFrom mask) of
        (m, _) : _ -> m : go (mask `xor` m)
        [] -> []
      where
        target = absorbed mask
    fits mask target (m, points) =
      m .&. mask == m && points + absorbed (mask `xor` m) == target

-- * The fitted tables

-- | VALUE by turn bucket and by every deadwood ten cards can hold.
worthTable :: IntMap.IntMap Double
worthTable =
  IntMap.fromList
    [ (bucket * 101 + left, cell valueRows (min left lastRow) bucket)
      | bucket <- [0 .. length hazardRow - 1],
        left <- [0 .. 10 * handSize]
    ]
  where
    lastRow = length valueRows - 1

worth :: Int -> Int -> Double
worth bucket left =
  fromMaybe 0 (IntMap.lookup (bucket * 101 + left) worthTable)

cell :: [[Double]] -> Int -> Int -> Double
cell rows i j = fromMaybe 0 (item i rows >>= item j)

item :: Int -> [a] -> Maybe a
item i xs
  | i < 0 = Nothing
  | otherwise = case drop i xs of
    x : _ -> Just x
    [] -> Nothing

-- | The turn bucket of my play `ahead` plays from now (turns count both
-- players').
bucketOf :: Memory -> Int -> Int
bucketOf m ahead = min (turn `div` turnStep) (length hazardRow - 1)
  where
    turn = 2 * plays m + (if wentFirst m then 0 else 1) + ahead

-- | Whether the knock policy knocks at this round's scores, at this
-- deadwood and turn bucket.
knocks :: Memory -> Int -> Int -> Bool
knocks m left bucket = flag == Just '1'
  where
    top = length knockRows - 1
    column score = min (score `div` scoreStep) top
    (mine, theirs) = scores m
    flag =
      item (column mine) knockRows
        >>= item (column theirs)
        >>= item left
        >>= item bucket

-- * Decisions

minimumOr :: Int -> [Int] -> Int
minimumOr none xs = case xs of
  [] -> none
  x : rest -> foldl' min x rest

-- | The expected worth of the hand after my next draw into `hand10` and
-- the best discard of another card than the one drawn: a stock draw is one
-- of `unseen` (uniformly); with `thrown` (the chance each rank of them is
-- the opponent's discard first), I take that discard when it is worth more.
afterDraw :: Int -> [Int] -> Int -> Maybe [Double] -> Double
afterDraw hand10 unseen bucket thrown
  | null unseen = worth bucket (deadwood hand10)
  | otherwise = maybe stockWorth ((stockWorth +) . gain) thrown
  where
    cards = bitsOf hand10
    base = minimumOr 0 (withoutEach hand10 cards)
    left new
      | meldable grown .&. new /= 0 = minimumOr 0 (withoutEach grown cards)
      | otherwise = cardValue (countTrailingZeros new) + base
      where
        grown = hand10 .|. new
    worths = [worth bucket (left new) | new <- unseen]
    stockWorth = foldl' (+) 0 worths / fromIntegral (length worths)
    gain chances =
      foldl'
        (+)
        0
        [ chance new chances * (v - stockWorth)
          | (new, v) <- zip unseen worths,
            v > stockWorth
        ]
    chance new chances =
      fromMaybe 0 (item (countTrailingZeros new `mod` 13) chances)

unseenOf :: Memory -> Int -> [Int]
unseenOf m hand = bitsOf (fullMask .&. complement known)
  where
    known = hand .|. dead m .|. took m

-- | Whether `card` could meld with cards among `hidden`: two more of its
-- rank, or two suit neighbours making a run with it.
couldMeld :: Int -> Int -> Bool
couldMeld card hidden =
  sameRank >= 2 || any runWith [(-2, -1), (-1, 1), (1, 2)]
  where
    index = countTrailingZeros card
    (rank, s) = (index `mod` 13, index `div` 13)
    sameRank =
      length [o | o <- [0 .. 3], o /= s, hidden .&. bit (13 * o + rank) /= 0]
    row = (hidden `shiftR` (13 * s)) .&. (bit 13 - 1)
    has r = row .&. bit r /= 0
    runWith (lo, hi) =
      0 <= rank + lo && rank + hi < 13 && has (rank + lo) && has (rank + hi)

-- | The chance the opponent picks `card` up: none if it could make no meld
-- with it, else the fitted danger given what it picked up and passed.
danger :: Memory -> Int -> Int -> Double
danger m card mine
  | not (couldMeld card hidden) = 0
  | otherwise =
    fromMaybe 0 (item picked dangerRows >>= item passed >>= item rank)
  where
    hidden = fullMask .&. complement mine .&. complement (dead m)
    index = countTrailingZeros card
    (rank, s) = (index `mod` 13, index `div` 13)
    has mask r s' = mask .&. bit (13 * s' + r) /= 0
    otherSuits = [o | o <- [0 .. 3], o /= s]
    near steps mask =
      or [has mask (rank + k) s | k <- steps, 0 <= rank + k, rank + k < 13]
    picked
      | any (has (took m) rank) otherSuits = 3
      | near [-1, 1] (took m) = 2
      | near [-2, 2] (took m) = 1
      | otherwise = 0 :: Int
    passed
      | any (has (shunned m) rank) otherSuits = 2
      | near [-1, 1] (shunned m) = 1
      | otherwise = 0 :: Int

-- | The memory brought up to date with what happened since my last play.
observe ::
  Card -> (Int, Int) -> Maybe String -> Maybe Draw -> [Card] -> Memory
observe top scores' memory opponent hand = case memory >>= readMemory of
  Just m | held m == mask && scores m == scores' -> carryOn m
  previous -> Memory scores' mask 0 first stockNow Nothing topBit 0 passedNow False kn dc
    where
      (kn, dc) = maybe (0, 0) (ended scores') previous
  where
    mask = maskOf hand
    topBit = bit (indexOf top)
    first = case opponent of
      Nothing -> True
      Just _ -> False
    fromStock = case opponent of
      Just Stock -> 1
      _ -> 0
    stockNow = stockSize - fromStock
    passedNow = if first then 0 else topBit
    carryOn m =
      m
        { stock = max 0 (stock m - fromStock),
          dead = deadNow .|. topBit,
          took = tookNow .&. complement topBit,
          shunned = shunnedNow .|. topBit
        }
      where
        (tookNow, deadNow, shunnedNow) = case (lastDiscard m, opponent) of
          (Just l, Just Discard) ->
            (took m .|. bit l, dead m .&. complement (bit l), shunned m)
          (Just l, _) -> (took m, dead m, shunned m .|. bit l)
          (Nothing, _) -> (took m, dead m, shunned m)

-- | (knocked, declined): the opponent's knocks and declined knocks, counting
-- the round `m` was in, which ended with the scores `scores'` (as the Python
-- file reads them).
ended :: (Int, Int) -> Memory -> (Int, Int)
ended (s0, s1) m
  | won < 0 || lost < 0 = (knocked m, declined m)
  | called m || stock m == 0 =
    (cap (knocked m), cap (declined m + (if declines then 1 else 0)))
  | stock m > 1 && lost /= ginBonus + mine = (cap (knocked m + 1), cap (declined m))
  -- its gin, after plays in which a hand on its way to gin mostly could knock
  | stock m > 1 && plays m >= 2 = (cap (knocked m), cap (declined m + 1))
  | otherwise = (cap (knocked m), cap (declined m))
  where
    mine = deadwood (held m)
    won = s0 - fst (scores m)
    lost = s1 - snd (scores m)
    theirs
      | won /= 0 && mine == 0 = won - ginBonus
      | won /= 0 = mine + won
      | otherwise = mine + undercutBonus - lost
    declines = 0 < theirs && theirs <= knockLimit && plays m >= 2
    cap = min 999

-- | The opponent's chance of knocking where it may: the fitted prior's
-- pseudo-counts with the knocks and declines seen this game.
knockRate :: Memory -> Double
knockRate m =
  (priorKnocks + fromIntegral (knocked m))
    / ( priorKnocks + priorDeclines + fromIntegral (knocked m)
          + fromIntegral (declined m)
      )
  where
    priorKnocks = fromMaybe 0 (item 0 knockPrior)
    priorDeclines = fromMaybe 0 (item 1 knockPrior)

-- | The chance the opponent holds at most `left` (but not gin) now that it
-- has not called on its last play.
undercut :: Memory -> Int -> Int -> Double
undercut m left bucket
  | rest > 0 = (1.0 - rate) * low / rest
  | otherwise = 0.0
  where
    rate = knockRate m
    at = cell heldRows bucket
    low = at left - at 0
    rest = 1.0 - at 0 - rate * (at knockLimit - at 0)

-- | The chance my next stock draw (one of `unseen`) lets my next play gin
-- with `hand10`.
ginChance :: Int -> [Int] -> Double
ginChance hand10 unseen
  | null unseen = 0.0
  | otherwise =
    fromIntegral (length (filter gins unseen)) / fromIntegral (length unseen)
  where
    cards = bitsOf hand10
    gins new =
      meldable grown .&. new /= 0
        && any (\c -> deadwood (grown `xor` c) == 0) cards
      where
        grown = hand10 .|. new

-- | The knock rate of the opponents the logs show (`knockPrior`).
fieldRate :: Double
fieldRate = priorKnocks / (priorKnocks + fromMaybe 0 (item 1 knockPrior))
  where
    priorKnocks = fromMaybe 0 (item 0 knockPrior)

-- | The chance the opponent calls on its next play: the field's
-- (`hazardRow`), as much likelier as its knock rate is than the field's.
calls :: Memory -> Int -> Double
calls m bucket
  | fieldRate > 0 = min 1.0 (hazard * knockRate m / fieldRate)
  | otherwise = hazard
  where
    hazard = fromMaybe 0 (item bucket hazardRow)

-- | The draw, after updating what is known.
pickCard :: ActionFunc
pickCard top scores' memory opponent hand = (draw, showMemory after)
  where
    m = observe top scores' memory opponent hand
    grown = held m .|. bit (indexOf top)
    taken = minimumOr 0 (withoutEach grown (bitsOf (held m)))
    bucket = bucketOf m 0
    stockWorth = afterDraw (held m) (unseenOf m (held m)) bucket Nothing
    (draw, after)
      | worth bucket taken > stockWorth = (Discard, m)
      | otherwise = (Stock, m {stock = stock m - 1})

-- | The discard and the call.
playCard :: PlayFunc
playCard picked scores' memory hand = (Action act played, showMemory after)
  where
    m = fromMaybe afresh (readMemory memory)
    afresh =
      Memory scores' (maskOf hand) 0 True stockSize Nothing 0 0 0 False 0 0
    full = maskOf hand .|. bit (indexOf picked)
    discards = bitsOf (maskOf hand)
    options = sort (zip (withoutEach full discards) discards)
    (least, bestCard) = case options of
      best : _ -> best
      [] -> (0, 0)
    mayCall = plays m >= 1
    bucket = bucketOf m 0
    (act, choice)
      | mayCall && least == 0 = (Gin, bestCard)
      | mayCall
          && least <= knockLimit
          -- the table's waits assume the field's calls: one that knocks
          -- sooner is not waited on
          && (knocks m least bucket || knockRate m > fieldRate)
          && undercutWeight * undercut m least bucket
            + ginWeight * ginChance (full `xor` bestCard) (unseenOf m full)
            <= calls m bucket =
        (Knock, bestCard)
      | stock m == 0 = (Drop, bestCard)
      | otherwise = (Drop, lookAhead)
    ranked = sort [(negate (worthOf l c), l, c) | (l, c) <- considered]
    lookAhead = case ranked of
      (_, _, c) : _ -> c
      [] -> bestCard
    considered =
      takeWhile (\(l, _) -> l <= least + prune) (take lookahead options)
    unseen = unseenOf m full
    later = bucketOf m 2
    thrown = fromMaybe [] (item (bucketOf m 1) thrownRows)
    hazard = fromMaybe 0 (item bucket hazardRow)
    worthOf l c =
      cell calledRows (min l (length calledRows - 1)) bucket
        + (1 - hazard) * afterDraw (full `xor` c) unseen later (Just thrown)
        - dangerWeight * danger m c full
    played = case [card | card <- hand, bit (indexOf card) == choice] of
      card : _ -> card
      [] -> picked
    after =
      m
        { held = full `xor` choice,
          plays = plays m + 1,
          lastDiscard = Just (countTrailingZeros choice),
          called = case act of
            Drop -> False
            _ -> True,
          dead = dead m .|. choice
        }

-- | A least-deadwood declaration: the melds, then each deadwood card on its
-- own.
makeMelds :: MeldFunc
makeMelds _ _ hand = map meldOf chosen ++ map Deadwood deadCards
  where
    chosen = arrangement (maskOf hand)
    deadCards = cardsOf (maskOf hand .&. complement (foldl' (.|.) 0 chosen))
    cardsOf mask =
      [card | b <- bitsOf mask, card <- hand, bit (indexOf card) == b]
    meldOf meld = case cardsOf meld of
      [x, y, z] | sameRank [x, y, z] -> Set3 x y z
      [w, x, y, z] | sameRank [w, x, y, z] -> Set4 w x y z
      [x, y, z] -> Straight3 x y z
      [w, x, y, z] -> Straight4 w x y z
      [v, w, x, y, z] -> Straight5 v w x y z
      cards -> case cards of
        card : _ -> Deadwood card
        [] -> Deadwood (Card Spade Ace)
    sameRank cards = and [r == r' | Card _ r <- cards, Card _ r' <- cards]

-- * The memory

-- | The memory as text: g1;s<scores>;h<hand>;p<plays>;f<first>;n<stock>;
-- l<last>;d<dead>;k<took>;x<shunned>;c<called>;o<knocked>,<declined>
-- (masks in hex).
showMemory :: Memory -> String
showMemory m =
  concat
    [ "g1;s",
      show mine,
      ",",
      show theirs,
      ";h",
      hex (held m),
      ";p",
      show (plays m),
      ";f",
      if wentFirst m then "1" else "0",
      ";n",
      show (stock m),
      ";l",
      maybe "-" show (lastDiscard m),
      ";d",
      hex (dead m),
      ";k",
      hex (took m),
      ";x",
      hex (shunned m),
      ";c",
      if called m then "1" else "0",
      ";o",
      show (knocked m),
      ",",
      show (declined m)
    ]
  where
    (mine, theirs) = scores m

hex :: Int -> String
hex v
  | v < 0 = '-' : hex (negate v)
  | v < 16 = digitOf v
  | otherwise = hex (v `div` 16) ++ digitOf (v `mod` 16)
  where
    digitOf d = take 1 (drop d hexDigits)

hexDigits :: String
hexDigits = "0123456789abcdef"

-- | The memory `showMemory` wrote, or Nothing for anything else.
readMemory :: String -> Maybe Memory
readMemory text
  | length text > memoryLimit = Nothing
  | otherwise = case parse memoryP text of
    Result "" m | stock m <= stockSize && maybe True (< 52) (lastDiscard m) ->
      Just m
    Result _ _ -> Nothing
    Error _ -> Nothing

memoryP :: Parser Memory
memoryP = do
  s0 <- string "g1;s" *> number 3
  s1 <- is ',' *> number 3
  h <- string ";h" *> hexNumber
  p <- string ";p" *> number 3
  f <- string ";f" *> ((False <$ is '0') ||| (True <$ is '1'))
  n <- string ";n" *> number 2
  l <- string ";l" *> ((Nothing <$ is '-') ||| (Just <$> number 2))
  d <- string ";d" *> hexNumber
  k <- string ";k" *> hexNumber
  x <- string ";x" *> hexNumber
  c <- string ";c" *> ((False <$ is '0') ||| (True <$ is '1'))
  kn <- string ";o" *> number 3
  Memory (s0, s1) h p f n l d k x c kn <$> (is ',' *> number 3)

-- | One to `most` decimal digits.
number :: Int -> Parser Int
number most = foldl' (\v c -> v * 10 + position decimals c) 0 <$> digits
  where
    decimals = "0123456789"
    digits = (:) <$> oneOf decimals <*> upTo (most - 1) (oneOf decimals)

-- | One to 13 lower-case hex digits.
hexNumber :: Parser Int
hexNumber = foldl' (\v c -> v * 16 + position hexDigits c) 0 <$> digits
  where
    digits = (:) <$> oneOf hexDigits <*> upTo 12 (oneOf hexDigits)

position :: String -> Char -> Int
position chars c = length (takeWhile (/= c) chars)

string :: String -> Parser String
string = traverse is

oneOf :: String -> Parser Char
oneOf chars = do
  c <- character
  if c `elem` chars then pure c else unexpectedCharParser c

-- | At most `k` of `p`, as many as there are.
upTo :: Int -> Parser a -> Parser [a]
upTo k p
  | k <= 0 = pure []
  | otherwise = ((:) <$> p <*> upTo (k - 1) p) ||| pure []
